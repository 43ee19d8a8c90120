// How a failed compiled check of an OpenAI request body becomes a 400 worded the way the OpenAI API
// words it: `param` as `input[2].content` / `messages[0].role`, `code` missing_required_parameter /
// invalid_type / invalid_value / the bound codes. Shared by the two OpenAI doors (Responses, Chat).
import { Type, type TSchema } from '@sinclair/typebox';
import type { TypeCheck } from '@sinclair/typebox/compiler';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { GatewayError } from '../errors.js';

/** Throws the 400 for a body `check` refused (a body that is not an object gets its own wording). */
export function throwCheckFailure(check: TypeCheck<TSchema>, body: unknown): never {
  if (kindOf(body) !== 'object') {
    throw new GatewayError('invalid_request', 'The request body must be a JSON object.', { code: 'invalid_type' });
  }
  const first = check.Errors(body).First();
  if (first === undefined) throw new GatewayError('invalid_request', 'The request body is not valid.', { code: 'invalid_value' });
  return throwProblem(describe(first));
}

/** `input/2/content` style JSON pointer → the OpenAI `param` spelling `input[2].content`. */
export function paramOf(pointer: string): string {
  let out = '';
  for (const raw of pointer.split('/')) {
    if (raw === '') continue;
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (/^\d+$/.test(seg)) out += '[' + seg + ']';
    else out += out === '' ? seg : '.' + seg;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Failure path only: nothing below runs for a valid request.

interface Problem {
  param: string;
  message: string;
  /** The codes the OpenAI API gives for these failures. */
  code:
    | 'missing_required_parameter'
    | 'invalid_type'
    | 'invalid_value'
    | 'empty_string'
    | 'string_above_max_length'
    | 'integer_below_min_value'
    | 'integer_above_max_value'
    | 'decimal_below_min_value'
    | 'decimal_above_max_value'
    | 'object_above_max_properties';
}

function throwProblem(p: Problem): never {
  throw new GatewayError('invalid_request', p.message, { param: p.param, code: p.code });
}

type Kind = 'string' | 'integer' | 'number' | 'boolean' | 'null' | 'array' | 'object';

function kindOf(value: unknown): Kind {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'number':
      return Number.isInteger(value) ? 'integer' : 'number';
    case 'boolean':
      return 'boolean';
    default:
      return 'object';
  }
}

const KIND_WORDS: Record<Kind, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a decimal',
  boolean: 'a boolean',
  null: 'null',
  array: 'an array',
  object: 'an object',
};

/** Whether a schema could accept a value of this JSON kind (so the caller meant that member). */
function accepts(schema: TSchema, kind: Kind): boolean {
  if (schema.const !== undefined) return kindOf(schema.const) === kind || (kind === 'integer' && typeof schema.const === 'number');
  const anyOf = schema.anyOf as TSchema[] | undefined;
  if (anyOf) return anyOf.some((m) => accepts(m, kind));
  switch (schema.type) {
    case 'number':
      return kind === 'number' || kind === 'integer';
    case undefined:
      return true;
    default:
      return schema.type === kind;
  }
}

function expectedWords(schemas: readonly TSchema[]): string {
  const words: string[] = [];
  const add = (s: TSchema): void => {
    if (s.const !== undefined) return void words.push(JSON.stringify(s.const));
    const anyOf = s.anyOf as TSchema[] | undefined;
    if (anyOf) return void anyOf.forEach(add);
    const w = s.type === undefined ? 'a value' : KIND_WORDS[s.type as Kind] ?? String(s.type);
    if (!words.includes(w)) words.push(w);
  };
  schemas.forEach(add);
  const shown = words.filter((w) => w !== 'null');
  if (shown.length === 0) return 'null';
  return shown.length === 1 ? shown[0]! : 'one of ' + listOf(shown);
}

function listOf(words: readonly string[]): string {
  return words.length < 2 ? words.join('') : words.slice(0, -1).join(', ') + ' or ' + words[words.length - 1];
}

/** All literal values when every member is a literal (or null, or a union of those); else undefined. */
function literalValues(members: readonly TSchema[]): unknown[] | undefined {
  const out: unknown[] = [];
  for (const m of members) {
    if (m.const !== undefined) out.push(m.const);
    else if (m.type === 'null') continue;
    else if (Array.isArray(m.anyOf)) {
      const inner = literalValues(m.anyOf as TSchema[]);
      if (inner === undefined) return undefined;
      out.push(...inner);
    } else return undefined;
  }
  return out.length > 0 ? out : undefined;
}

function invalidType(path: string, schemas: readonly TSchema[], value: unknown): Problem {
  const param = paramOf(path);
  return {
    param,
    code: 'invalid_type',
    message: `Invalid type for '${param}': expected ${expectedWords(schemas)}, but got ${KIND_WORDS[kindOf(value)]} instead.`,
  };
}

function invalidValue(path: string, value: unknown, allowed: readonly unknown[]): Problem {
  const param = paramOf(path);
  const shown = allowed.map((v) => `'${String(v)}'`);
  return {
    param,
    code: 'invalid_value',
    message: `Invalid value for '${param}': ${JSON.stringify(value)}. Supported values are: ${listOf(shown)}.`,
  };
}

/** The literals a tagged member accepts under `key` (empty: not tagged by it). */
function tagConsts(schema: TSchema, key: string): string[] {
  const prop = (schema.properties as Record<string, TSchema> | undefined)?.[key];
  if (!prop) return [];
  return (literalValues([prop]) ?? []).filter((v): v is string => typeof v === 'string');
}

/** The key a union's members are told apart by: `type` (items, parts, tools), else `role` (Chat messages). */
function tagKeyOf(members: readonly TSchema[]): string {
  return members.some((m) => tagConsts(m, 'type').length > 0) || !members.some((m) => tagConsts(m, 'role').length > 0) ? 'type' : 'role';
}

function requiredKeys(schema: TSchema): string[] {
  return (schema.required as string[] | undefined) ?? [];
}

/** Descends into failed unions to the member the caller meant, so the message names the deepest field. */
function describe(err: ValueError): Problem {
  if (err.type !== ValueErrorType.Union) return leaf(err);
  const members = (err.schema.anyOf as TSchema[] | undefined) ?? [];
  const value = err.value;
  const kind = kindOf(value);
  const candidates: number[] = [];
  for (let i = 0; i < members.length; i++) if (accepts(members[i]!, kind)) candidates.push(i);
  if (candidates.length === 0) return invalidType(err.path, members, value);
  const picked = candidates.map((i) => members[i]!);
  const allowed = literalValues(picked);
  if (allowed !== undefined) return invalidValue(err.path, value, allowed);
  const firstOf = (i: number): Problem => {
    const e = err.errors[i]?.First();
    return e ? describe(e) : invalidType(err.path, members, value);
  };
  if (candidates.length === 1) return firstOf(candidates[0]!);
  if (kind === 'object') {
    const obj = value as Record<string, unknown>;
    const key = tagKeyOf(picked);
    const tag = obj[key];
    if (typeof tag === 'string') {
      const all: string[] = [];
      for (const i of candidates) {
        const consts = tagConsts(members[i]!, key);
        if (consts.includes(tag)) return firstOf(i);
        all.push(...consts);
      }
      // A closed tagged union (no catch-all member) and a tag it does not know.
      if (all.length > 0) return invalidValue(err.path + '/' + key, tag, all);
    } else if (tag === undefined || tag === null) {
      // Members whose `type` may be omitted (message items, item references): the one whose required
      // keys the value has most of.
      let best = -1;
      let bestScore = -1;
      for (const i of candidates) {
        const m = members[i]!;
        if (requiredKeys(m).includes(key)) continue;
        let score = 0;
        for (const k of requiredKeys(m)) if (obj[k] !== undefined) score++;
        if (score > bestScore) {
          best = i;
          bestScore = score;
        }
      }
      if (best >= 0) return firstOf(best);
      const param = paramOf(err.path + '/' + key);
      return { param, code: 'missing_required_parameter', message: `Missing required parameter: '${param}'.` };
    } else {
      return invalidType(err.path + '/' + key, [Type.String()], tag);
    }
  }
  // Otherwise the member that got furthest into the value (earliest wins a tie).
  let bestErr: ValueError | undefined;
  for (const i of candidates) {
    const e = err.errors[i]?.First();
    if (e && (bestErr === undefined || e.path.length > bestErr.path.length)) bestErr = e;
  }
  return bestErr ? describe(bestErr) : invalidType(err.path, members, value);
}

function leaf(err: ValueError): Problem {
  const s = err.schema as { const?: unknown; minimum?: number; maximum?: number; minLength?: number; maxLength?: number; pattern?: string; maxProperties?: number };
  const param = paramOf(err.path);
  switch (err.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return { param, code: 'missing_required_parameter', message: `Missing required parameter: '${param}'.` };
    case ValueErrorType.String:
    case ValueErrorType.Number:
    case ValueErrorType.Integer:
    case ValueErrorType.Boolean:
    case ValueErrorType.Array:
    case ValueErrorType.Object:
    case ValueErrorType.Null:
      return invalidType(err.path, [err.schema], err.value);
    case ValueErrorType.Literal:
      return invalidValue(err.path, err.value, [s.const]);
    case ValueErrorType.StringMinLength:
      return {
        param,
        code: String(err.value).length === 0 ? 'empty_string' : 'invalid_value',
        message: `Invalid '${param}': string too short. Expected a string with minimum length ${s.minLength}, but got a string with length ${String(err.value).length} instead.`,
      };
    case ValueErrorType.StringMaxLength:
      return {
        param,
        code: 'string_above_max_length',
        message: `Invalid '${param}': string too long. Expected a string with maximum length ${s.maxLength}, but got a string with length ${String(err.value).length} instead.`,
      };
    case ValueErrorType.StringPattern:
      return {
        param,
        code: 'invalid_value',
        message: `Invalid '${param}': string does not match pattern. Expected a string that matches the pattern '${s.pattern}'.`,
      };
    case ValueErrorType.ObjectMaxProperties:
      return {
        param,
        code: 'object_above_max_properties',
        message: `Invalid '${param}': too many properties. Expected an object with at most ${s.maxProperties} properties, but got an object with ${Object.keys(err.value as object).length} properties instead.`,
      };
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.NumberMinimum: {
      const integer = err.type === ValueErrorType.IntegerMinimum;
      return {
        param,
        code: integer ? 'integer_below_min_value' : 'decimal_below_min_value',
        message: `Invalid '${param}': ${integer ? 'integer' : 'decimal'} below minimum value. Expected a value >= ${s.minimum}, but got ${String(err.value)} instead.`,
      };
    }
    case ValueErrorType.IntegerMaximum:
    case ValueErrorType.NumberMaximum: {
      const integer = err.type === ValueErrorType.IntegerMaximum;
      return {
        param,
        code: integer ? 'integer_above_max_value' : 'decimal_above_max_value',
        message: `Invalid '${param}': ${integer ? 'integer' : 'decimal'} above maximum value. Expected a value <= ${s.maximum}, but got ${String(err.value)} instead.`,
      };
    }
    default:
      return { param, code: 'invalid_value', message: `Invalid '${param}': ${err.message}.` };
  }
}
