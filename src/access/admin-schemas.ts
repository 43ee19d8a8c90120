// The admin API's request bodies (POST/PATCH /admin/keys and /admin/teams, rotate), compiled once.
// Limits and budgets have the config file's shape; PATCH takes null to clear a field.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { describeSchemaErrors, pointerToKey } from '../config/schema-errors.js';
import { Budget, Limits } from '../config/schema.js';

/** Key and team names: what fits a metric label, a log line and a URL path segment unescaped. */
export const NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$';
/** The most a key's or team's metadata may take, as JSON. */
export const MAX_METADATA_BYTES = 4096;
/** The longest grace period a rotation may give the old secret: 30 days. */
export const MAX_GRACE_S = 30 * 86_400;

const Name = Type.String({ pattern: NAME_PATTERN });
const Models = Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 256 });
const Metadata = Type.Record(Type.String({ maxLength: 100 }), Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]), { maxProperties: 64 });
const Instant = Type.String({ minLength: 1, maxLength: 40 });
const nullable = <T extends TSchema>(t: T) => Type.Optional(Type.Union([t, Type.Null()]));

export const KeyCreate = Type.Object(
  {
    name: Name,
    team: Type.Optional(Name),
    models: Type.Optional(Models),
    limits: Type.Optional(Limits),
    budget: Type.Optional(Budget),
    expires_at: Type.Optional(Instant),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export const KeyPatch = Type.Object(
  {
    team: nullable(Name),
    models: nullable(Models),
    limits: nullable(Limits),
    budget: nullable(Budget),
    expires_at: nullable(Instant),
    metadata: nullable(Metadata),
    disabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export const Rotate = Type.Object({ grace_s: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_GRACE_S })) }, { additionalProperties: false });
export const TeamCreate = Type.Object(
  {
    name: Name,
    models: Type.Optional(Models),
    limits: Type.Optional(Limits),
    budget: Type.Optional(Budget),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export const TeamPatch = Type.Object(
  {
    models: nullable(Models),
    limits: nullable(Limits),
    budget: nullable(Budget),
    metadata: nullable(Metadata),
    disabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export type KeyCreateBody = Static<typeof KeyCreate>;
export type KeyPatchBody = Static<typeof KeyPatch>;
export type RotateBody = Static<typeof Rotate>;
export type TeamCreateBody = Static<typeof TeamCreate>;
export type TeamPatchBody = Static<typeof TeamPatch>;

/** A body problem: the field (dotted) and what is wrong with it. */
export interface BodyProblem {
  field: string;
  message: string;
}

export interface BodyCheck<T> {
  (value: unknown): { ok: true; value: T } | { ok: false; problem: BodyProblem };
}

/** `strict`: for PATCH bodies, the schema without the nulls; a null (clear the field) is taken out
 * before the check, so a bad value is reported at its own field, not as "not any of the union". */
function compiled<T extends TSchema>(schema: T, strict?: TSchema): BodyCheck<Static<T>> {
  const check = TypeCompiler.Compile(strict ?? schema);
  return (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, problem: { field: '(body)', message: 'the body must be a JSON object' } };
    const checked = strict === undefined ? value : Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null));
    if (check.Check(checked)) return { ok: true, value: value as Static<T> };
    const first = check.Errors(checked).First()!;
    const field = pointerToKey(first.path) || '(body)';
    // describeSchemaErrors never repeats the value (a secret pasted in a wrong field stays out of the answer).
    const line = describeSchemaErrors([first], value)[0] ?? `${field}: invalid`;
    return { ok: false, problem: { field, message: line } };
  };
}

export const checkKeyCreate = compiled(KeyCreate);
export const checkKeyPatch = compiled(KeyPatch, Type.Object({ ...Type.Omit(KeyCreate, ['name']).properties, disabled: Type.Optional(Type.Boolean()) }, { additionalProperties: false }));
export const checkRotate = compiled(Rotate);
export const checkTeamCreate = compiled(TeamCreate);
export const checkTeamPatch = compiled(TeamPatch, Type.Object({ ...Type.Omit(TeamCreate, ['name']).properties, disabled: Type.Optional(Type.Boolean()) }, { additionalProperties: false }));
