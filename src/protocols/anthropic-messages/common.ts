// Small TypeBox building blocks shared by the Anthropic Messages wire shapes. Objects allow unknown
// fields everywhere (TypeBox's default): the API grows faster than this file, and the pass-through
// lane must never be blocked by a field we have not learned yet.
import { Type, type TLiteral, type TSchema, type TUnion, type TNull } from '@sinclair/typebox';

export function Nullable<T extends TSchema>(schema: T): TUnion<[T, TNull]> {
  return Type.Union([schema, Type.Null()]);
}

/**
 * A `type` tag that is none of `known`. The "anything else" member of a tagged union: future block,
 * tool or thinking types validate (and are then dropped with a warning by the decoder), while a known
 * tag with broken fields still fails on its own member.
 */
export function OtherTag(known: readonly string[]) {
  return Type.String({ pattern: '^(?!(?:' + known.join('|') + ')$)' });
}

/** `{type:"ephemeral", ttl?}`; carried verbatim toward an Anthropic upstream. */
export const CacheControl = Nullable(Type.Object({ type: Type.String() }));

/** A closed string enum as a union of literals (the validator lists them on a bad value). */
export function Enum<const T extends readonly string[]>(values: T): TUnion<TLiteral<T[number]>[]> {
  return Type.Union(values.map((v) => Type.Literal(v)));
}
