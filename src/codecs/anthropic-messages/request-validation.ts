// Compiled request validators (compiled once, at module load) and the one place a failed check becomes
// a 400 naming the field the way the Anthropic API does: `messages.0.content.1.source: Field required`.
// A body that passes the shape then meets the rules that need the whole request (vendor-rules.ts).
import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { GatewayError } from '../../errors.js';
import { CountTokensRequest, MessagesRequest } from '../../protocols/anthropic-messages/request.js';
import type { CountTokensRequestBody, MessagesRequestBody } from '../../protocols/anthropic-messages/request.js';
import { checkVendorRules } from './vendor-rules.js';

const createCheck = TypeCompiler.Compile(MessagesRequest);
const countCheck = TypeCompiler.Compile(CountTokensRequest);

export function validateCreateRequest(body: unknown): MessagesRequestBody {
  if (!createCheck.Check(body)) throw validationError(createCheck, body);
  checkVendorRules(body);
  return body;
}

export function validateCountTokensRequest(body: unknown): CountTokensRequestBody {
  if (!countCheck.Check(body)) throw validationError(countCheck, body);
  checkVendorRules(body);
  return body;
}

// ---------------------------------------------------------------------------------------------
// Failure path only: nothing below runs for a valid request.

function validationError<T extends TSchema>(check: TypeCheck<T>, body: unknown): GatewayError {
  const first = check.Errors(body).First();
  if (first === undefined) return new GatewayError('invalid_request', 'invalid request body');
  const { path, message } = describe(first);
  if (path === '') return new GatewayError('invalid_request', 'request body: ' + message);
  return new GatewayError('invalid_request', path + ': ' + message, { param: path });
}

interface Described {
  path: string;
  message: string;
}

/** Descends into failed unions to the member the caller meant, so the message names the deepest field. */
function describe(err: ValueError): Described {
  if (err.type !== ValueErrorType.Union) return { path: dotPath(err.path), message: wording(err) };
  const members = (err.schema as { anyOf?: TSchema[] }).anyOf ?? [];
  const allowed = literalValues(members);
  if (allowed !== undefined) return { path: dotPath(err.path), message: 'Input should be ' + listOf(allowed) };
  const firsts = err.errors.map((it) => it.First());
  const value = err.value;
  const tag = tagOf(value);
  if (tag === undefined && isObject(value) && members.every((m) => requiresTag(m))) {
    const missing = (value as { type?: unknown }).type === undefined;
    return { path: dotPath(err.path + '/type'), message: missing ? 'Field required' : 'Input should be a valid string' };
  }
  if (tag !== undefined) {
    const tags: string[] = [];
    for (let i = 0; i < members.length; i++) {
      const consts = tagConsts(members[i]!);
      if (consts.includes(tag) && firsts[i]) return describe(firsts[i]!);
      tags.push(...consts);
    }
    // A closed tagged union (no "anything else" member) and a tag it does not know.
    if (tags.length > 0 && members.every((m) => tagConsts(m).length > 0)) {
      return {
        path: dotPath(err.path + '/type'),
        message: `Input tag '${tag}' found using 'type' does not match any of the expected tags: ${tags.map((t) => `'${t}'`).join(', ')}`,
      };
    }
  }
  // Otherwise the member that got furthest into the value (earliest wins a tie).
  let best: ValueError | undefined;
  for (const e of firsts) if (e && (best === undefined || e.path.length > best.path.length)) best = e;
  return best ? describe(best) : { path: dotPath(err.path), message: 'Input does not match any allowed shape' };
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function tagOf(value: unknown): string | undefined {
  if (!isObject(value)) return undefined;
  const t = (value as { type?: unknown }).type;
  return typeof t === 'string' ? t : undefined;
}

/** A member that is an object with a required `type` property (tagged union member). */
function requiresTag(schema: TSchema): boolean {
  return ((schema as { required?: string[] }).required ?? []).includes('type');
}

/** The allowed values when every member is a literal or null (possibly nested), else undefined. */
function literalValues(members: readonly TSchema[]): unknown[] | undefined {
  const out: unknown[] = [];
  for (const m of members) {
    if (m.const !== undefined) out.push(m.const);
    else if (m.type === 'null') out.push(null);
    else if (Array.isArray(m.anyOf)) {
      const inner = literalValues(m.anyOf as TSchema[]);
      if (inner === undefined) return undefined;
      out.push(...inner);
    } else return undefined;
  }
  return out;
}

function listOf(values: readonly unknown[]): string {
  const shown = values.map((v) => (typeof v === 'string' ? `'${v}'` : String(v)));
  return shown.length < 2 ? shown.join('') : shown.slice(0, -1).join(', ') + ' or ' + shown[shown.length - 1];
}

/** The literal values a union member accepts for its `type` property (empty: not tagged). */
function tagConsts(schema: TSchema): string[] {
  const prop = (schema as { properties?: Record<string, TSchema> }).properties?.type;
  if (!prop) return [];
  if (typeof prop.const === 'string') return [prop.const];
  const any = (prop as { anyOf?: TSchema[] }).anyOf;
  return any ? any.flatMap((s) => (typeof s.const === 'string' ? [s.const] : [])) : [];
}

/** `/messages/0/content` → `messages.0.content` (JSON Pointer unescaping included). */
function dotPath(pointer: string): string {
  if (pointer === '') return '';
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}

function wording(err: ValueError): string {
  const s = err.schema as { const?: unknown; minimum?: number; maximum?: number; minLength?: number; maxLength?: number; pattern?: string };
  switch (err.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return 'Field required';
    case ValueErrorType.String:
      return 'Input should be a valid string';
    case ValueErrorType.StringMinLength:
      return `String should have at least ${s.minLength} character${s.minLength === 1 ? '' : 's'}`;
    case ValueErrorType.StringMaxLength:
      return `String should have at most ${s.maxLength} character${s.maxLength === 1 ? '' : 's'}`;
    case ValueErrorType.StringPattern:
      return `String should match pattern '${s.pattern}'`;
    case ValueErrorType.ObjectAdditionalProperties:
      return 'Extra inputs are not permitted';
    case ValueErrorType.Integer:
      return 'Input should be a valid integer';
    case ValueErrorType.Number:
      return 'Input should be a valid number';
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.NumberMinimum:
      return `Input should be greater than or equal to ${s.minimum}`;
    case ValueErrorType.IntegerMaximum:
    case ValueErrorType.NumberMaximum:
      return `Input should be less than or equal to ${s.maximum}`;
    case ValueErrorType.Boolean:
      return 'Input should be a valid boolean';
    case ValueErrorType.Array:
      return 'Input should be a valid list';
    case ValueErrorType.Object:
      return 'Input should be a valid dictionary';
    case ValueErrorType.Null:
      return 'Input should be null';
    case ValueErrorType.Literal:
      return `Input should be ${JSON.stringify(s.const)}`;
    default:
      return err.message;
  }
}
