// Gateway authentication: `x-api-key` or `Authorization: Bearer` on both front doors (x-api-key wins
// when both are present). Open access only with `auth.open: true` (main warns at start-up). The comparison
// itself lives in access/key-index.ts (constant time with respect to the key's content).
import type { IncomingHttpHeaders } from 'node:http';
import { ANONYMOUS_CALLER, type Caller } from '../access/caller.js';
import { keyIndexFor } from '../access/key-index.js';
import type { GatewayConfig, KeyConfig } from '../config/types.js';
import { GatewayError } from '../errors.js';

export function presentedKey(headers: IncomingHttpHeaders): string | undefined {
  const x = headers['x-api-key'];
  if (typeof x === 'string' && x !== '') return x;
  const auth = headers.authorization;
  if (typeof auth === 'string' && /^bearer /i.test(auth)) return auth.slice(7).trim();
  return undefined;
}

/**
 * The caller behind the request's key: the key's caller, else the anonymous caller when the gateway
 * is open (`auth.open: true`; admin keys are still recognised then); throws an authentication error otherwise.
 */
export function identify(config: { authKeys: readonly KeyConfig[]; auth: GatewayConfig['auth'] | undefined }, headers: IncomingHttpHeaders): Caller {
  const index = keyIndexFor(config.authKeys, config.auth);
  const given = presentedKey(headers);
  const caller = index.lookup(given);
  if (caller !== undefined) return caller;
  if (index.open) return ANONYMOUS_CALLER;
  if (given === undefined) {
    throw new GatewayError('authentication', 'missing API key: send it in the x-api-key header or as Authorization: Bearer <key>');
  }
  throw new GatewayError('authentication', 'invalid API key', { code: 'invalid_api_key' });
}
