// Gateway authentication: `x-api-key` or `Authorization: Bearer` on both front doors (x-api-key wins
// when both are present). No configured keys = open access (main warns at start-up).
import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { GatewayError } from '../errors.js';

export function presentedKey(headers: IncomingHttpHeaders): string | undefined {
  const x = headers['x-api-key'];
  if (typeof x === 'string' && x !== '') return x;
  const auth = headers.authorization;
  if (typeof auth === 'string' && /^bearer /i.test(auth)) return auth.slice(7).trim();
  return undefined;
}

/** Returns the matching key's name (or undefined for open access); throws authentication errors. */
export function authenticate(keys: readonly { name: string; key: string }[], headers: IncomingHttpHeaders): string | undefined {
  if (keys.length === 0) return undefined;
  const given = presentedKey(headers);
  if (given === undefined) {
    throw new GatewayError('authentication', 'missing API key: send it in the x-api-key header or as Authorization: Bearer <key>');
  }
  const g = Buffer.from(given);
  for (const k of keys) {
    const want = Buffer.from(k.key);
    if (want.length === g.length && timingSafeEqual(want, g)) return k.name;
  }
  throw new GatewayError('authentication', 'invalid API key', { code: 'invalid_api_key' });
}
