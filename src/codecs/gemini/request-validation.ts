// Compiled validators for the Gemini door's bodies and the one place a failed check becomes a 400
// naming the field as Google does (`contents[0].parts[1].text`). Compiled once, at module load.
import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { GatewayError } from '../../errors.js';
import { CountTokensRequest, GenerateContentRequest } from '../../protocols/gemini/caller-request.js';
import type { CountTokensRequestBody, GenerateContentRequestBody } from '../../protocols/gemini/caller-request.js';

const generateCheck = TypeCompiler.Compile(GenerateContentRequest);
const countCheck = TypeCompiler.Compile(CountTokensRequest);

export function validateGenerateRequest(body: unknown): GenerateContentRequestBody {
  if (!generateCheck.Check(body)) throw validationError(generateCheck, body);
  return body;
}

export function validateCountRequest(body: unknown): CountTokensRequestBody {
  if (!countCheck.Check(body)) throw validationError(countCheck, body);
  return body;
}

/** A 400 naming the field (`param` in Google's path form). */
export function fieldError(path: string, message: string): GatewayError {
  return new GatewayError('invalid_request', `Invalid value at '${path}': ${message}`, { param: path });
}

// ---------------------------------------------------------------------------------------------
// Failure path only.

function validationError<T extends TSchema>(check: TypeCheck<T>, body: unknown): GatewayError {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return new GatewayError('invalid_request', 'request body: must be a JSON object');
  const first = check.Errors(body).First();
  if (first === undefined) return new GatewayError('invalid_request', 'invalid request body');
  const deepest = descend(first);
  const path = googlePath(deepest.path);
  if (path === '') return new GatewayError('invalid_request', 'request body: ' + wording(deepest));
  if (deepest.type === ValueErrorType.ObjectRequiredProperty) return new GatewayError('invalid_request', `${path}: required field is missing`, { param: path });
  return fieldError(path, wording(deepest));
}

/** Into a failed union, the member that got furthest. */
function descend(err: ValueError): ValueError {
  if (err.type !== ValueErrorType.Union) return err;
  let best: ValueError | undefined;
  for (const it of err.errors) {
    const e = it.First();
    if (e && (best === undefined || e.path.length > best.path.length)) best = e;
  }
  return best && best.path.length > err.path.length ? descend(best) : err;
}

/** `/contents/0/parts/1/text` → `contents[0].parts[1].text`. */
function googlePath(pointer: string): string {
  let out = '';
  for (const raw of pointer.split('/').slice(1)) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    out += /^\d+$/.test(seg) ? `[${seg}]` : (out === '' ? '' : '.') + seg;
  }
  return out;
}

function wording(err: ValueError): string {
  const s = err.schema as { minimum?: number; maximum?: number; exclusiveMaximum?: number; minLength?: number; maxLength?: number; maxItems?: number; anyOf?: { const?: unknown }[] };
  switch (err.type) {
    case ValueErrorType.String:
      return 'expected a string';
    case ValueErrorType.StringMinLength:
      return 'must not be empty';
    case ValueErrorType.StringMaxLength:
      return `must be at most ${s.maxLength} characters`;
    case ValueErrorType.Integer:
      return 'expected an integer';
    case ValueErrorType.Number:
      return 'expected a number';
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.NumberMinimum:
      return `must be at least ${s.minimum}`;
    case ValueErrorType.IntegerMaximum:
    case ValueErrorType.NumberMaximum:
      return `must be at most ${s.maximum}`;
    case ValueErrorType.NumberExclusiveMaximum:
      return `must be below ${s.exclusiveMaximum}`;
    case ValueErrorType.ArrayMaxItems:
      return `at most ${s.maxItems} items`;
    case ValueErrorType.Boolean:
      return 'expected a boolean';
    case ValueErrorType.Array:
      return 'expected a list';
    case ValueErrorType.Object:
      return 'expected an object';
    case ValueErrorType.Union: {
      const values = (s.anyOf ?? []).map((m) => m.const).filter((v) => v !== undefined);
      return values.length > 0 ? `expected one of ${values.map((v) => JSON.stringify(v)).join(', ')}` : 'not an accepted shape';
    }
    default:
      return err.message;
  }
}
