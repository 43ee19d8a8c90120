// Small TypeBox building blocks for the Responses create body. Objects allow unknown fields (TypeBox's
// default): the API grows faster than these files, and a field we have not learned yet must never
// turn a valid request into a 400.
import { Type, type TLiteral, type TNull, type TSchema, type TUnion } from '@sinclair/typebox';

export function Nullable<T extends TSchema>(schema: T): TUnion<[T, TNull]> {
  return Type.Union([schema, Type.Null()]);
}

/** A closed string enum as a union of literals (the validator lists them on a bad value). */
export function Enum<const T extends readonly string[]>(values: T): TUnion<TLiteral<T[number]>[]> {
  return Type.Union(values.map((v) => Type.Literal(v)));
}

/**
 * A `type` tag that is none of `known`: the "anything else" member of a tagged union. Built-in items,
 * tools and parts validate through it (the decoder then drops them with a warning), while a known tag
 * with broken fields still fails on its own member.
 */
export function OtherTag(known: readonly string[]) {
  return Type.String({ pattern: '^(?!(?:' + known.join('|') + ')$)' });
}
