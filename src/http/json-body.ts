// The JSON body parser of both doors: a nesting-depth limit checked on the raw text in one pass before
// JSON.parse, so a body nested 10,000 deep is a 400 here instead of a stack overflow later (in a
// serializer or a translator that recurses). The same pass spots a `"__proto__"` key, which fastify's
// default parser also refuses (spelled plainly; an escaped spelling is caught by a native regex).
import { rememberCallerJson } from '../drivers/caller-json.js';
import { closingQuote, skipSpace } from '../drivers/top-level-string.js';
import { GatewayError } from '../errors.js';

/** Deepest object/array nesting a request body may have. Real bodies stay far below it (Claude Code's
 * tool schemas nest about 10 deep); recursion over anything this deep is safe. */
export const MAX_JSON_DEPTH = 256;

const OPEN_BRACE = 123;
const OPEN_BRACKET = 91;
const CLOSE_BRACE = 125;
const CLOSE_BRACKET = 93;
const COLON = 58;
const QUOTE = 34;

/** What `scanJson` found (plain numbers: no per-call allocation). */
export const Scan = { Ok: 0, TooDeep: 1, ProtoKey: 2 } as const;
export type ScanResult = (typeof Scan)[keyof typeof Scan];

/** What the last scanJson saw of the top level (module state: no per-call allocation). */
const top = { keys: 0, models: 0, modelStart: -1, modelEnd: -1 };

/**
 * Nesting depth and `__proto__` strings, on the raw text. On the way it notes the top-level keys and
 * where a top-level "model" string value is (`top`), for the pass-through lane (drivers/caller-json.ts). Structural characters are looked at one by
 * one; strings (most of a real body) are skipped with indexOf, which is native and fast. Malformed
 * text is not judged here: JSON.parse does that right after.
 */
export function scanJson(text: string, maxDepth: number): ScanResult {
  const n = text.length;
  let depth = 0;
  let proto = false;
  let pos = 0;
  top.keys = 0;
  top.models = 0;
  top.modelStart = -1;
  while (pos < n) {
    let quote = text.indexOf('"', pos);
    if (quote < 0) quote = n;
    for (let i = pos; i < quote; i++) {
      const c = text.charCodeAt(i);
      if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        if (++depth > maxDepth) return Scan.TooDeep;
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
    }
    if (quote === n) break;
    const end = closingQuote(text, quote);
    if (end < 0) return proto ? Scan.ProtoKey : Scan.Ok;
    if (end - quote === 10 && text.startsWith('__proto__', quote + 1)) proto = true;
    pos = end + 1;
    if (depth === 1) topLevelString(text, quote, pos);
  }
  return proto ? Scan.ProtoKey : Scan.Ok;
}

/** A string in the top-level object (the closing quote at `after - 1`): a key if a `:` follows. */
function topLevelString(text: string, quote: number, after: number): void {
  let i = skipSpace(text, after);
  if (text.charCodeAt(i) !== COLON) return;
  top.keys++;
  if (after - quote !== 7 || !text.startsWith('model', quote + 1)) return;
  top.models++;
  i = skipSpace(text, i + 1);
  if (text.charCodeAt(i) !== QUOTE) return;
  const end = closingQuote(text, i);
  if (end < 0) return;
  top.modelStart = i;
  top.modelEnd = end + 1;
}

/** An escaped `_`, `p`, `r`, `o` or `t`: the only way to spell `__proto__` that the scan cannot see.
 * (Not any `\u00…`: Python clients escape every non-ASCII character.) */
const ESCAPED_PROTO_LETTER = /\\u00(?:5[fF]|6[fF]|7[024])/;

/** Raw body text → value, or a 400 GatewayError saying what is wrong with it. */
export function parseJsonBody(text: string): unknown {
  if (text.length === 0) throw new GatewayError('invalid_request', 'request body is empty; expected a JSON object');
  let scan = scanJson(text, MAX_JSON_DEPTH);
  if (scan === Scan.Ok && ESCAPED_PROTO_LETTER.test(text)) scan = Scan.ProtoKey;
  if (scan === Scan.TooDeep) {
    throw new GatewayError('invalid_request', `request body is nested deeper than ${MAX_JSON_DEPTH} levels`, { code: 'json_too_deep' });
  }
  try {
    // Only a body with a "__proto__" string pays for the reviver (it may just be a value).
    const value: unknown = scan === Scan.ProtoKey ? JSON.parse(text, refuseProtoKey) : JSON.parse(text);
    if (top.models === 1 && top.modelStart >= 0 && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      rememberCallerJson(value, { text, modelStart: top.modelStart, modelEnd: top.modelEnd, keys: top.keys });
    }
    return value;
  } catch (err) {
    if (err instanceof GatewayError) throw err;
    throw new GatewayError('invalid_request', `request body is not valid JSON: ${(err as Error).message.slice(0, 200)}`);
  }
}

function refuseProtoKey(key: string, value: unknown): unknown {
  if (key === '__proto__') throw new GatewayError('invalid_request', 'request body contains a forbidden "__proto__" key');
  return value;
}
