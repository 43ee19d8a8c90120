// Small TypeBox building blocks shared by the Anthropic Messages wire shapes. Objects allow unknown
// fields (TypeBox's default): the API grows faster than this file, and the pass-through lane must
// never be blocked by a field we have not learned yet. Type tags, though, are closed lists: a block or
// tool type the API does not know is a 400 there, so it is one here.
import { Type, type TLiteral, type TSchema, type TUnion, type TNull } from '@sinclair/typebox';

export function Nullable<T extends TSchema>(schema: T): TUnion<[T, TNull]> {
  return Type.Union([schema, Type.Null()]);
}

/** `{type:"ephemeral", ttl?}`; carried verbatim toward an Anthropic upstream. */
export const CacheControl = Nullable(Type.Object({ type: Type.String() }));

/** A closed string enum as a union of literals (the validator lists them on a bad value). */
export function Enum<const T extends readonly string[]>(values: T): TUnion<TLiteral<T[number]>[]> {
  return Type.Union(values.map((v) => Type.Literal(v)));
}
