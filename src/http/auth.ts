// Gateway authentication: `x-api-key`, `x-goog-api-key` or `Authorization: Bearer` on every front door
// (in that order when several are present), and `?key=` on the routes that take it (Google's clients
// may send the key in the query: `config: { queryKey: true }`; the URL is never logged). Open access only with `auth.open: true` (main warns at start-up). The comparison
// itself lives in access/key-index.ts (constant time with respect to the key's content).
import type { IncomingHttpHeaders } from 'node:http';
import { ANONYMOUS_CALLER, type Caller } from '../access/caller.js';
import { keyIndexFor } from '../access/key-index.js';
import { looksLikeRuntimeKey } from '../access/key-secret.js';
import type { RuntimeKeys } from '../access/runtime-keys.js';
import { hash } from 'node:crypto';
import type { GatewayConfig, KeyConfig } from '../config/types.js';
import { GatewayError } from '../errors.js';

export function presentedKey(headers: IncomingHttpHeaders, queryKey?: string): string | undefined {
  const x = headers['x-api-key'];
  if (typeof x === 'string' && x !== '') return x;
  const goog = headers['x-goog-api-key'];
  if (typeof goog === 'string' && goog !== '') return goog;
  const auth = headers.authorization;
  if (typeof auth === 'string' && /^bearer /i.test(auth)) return auth.slice(7).trim();
  return queryKey !== undefined && queryKey !== '' ? queryKey : undefined;
}

/**
 * The caller behind the request's key: the key's caller, else the anonymous caller when the gateway
 * is open (`auth.open: true`; admin keys are still recognised then); throws an authentication error otherwise.
 */
export function identify(
  config: { authKeys: readonly KeyConfig[]; auth: GatewayConfig['auth'] | undefined },
  headers: IncomingHttpHeaders,
  queryKey?: string,
  runtime?: RuntimeKeys,
): Caller {
  const index = keyIndexFor(config.authKeys, config.auth);
  const given = presentedKey(headers, queryKey);
  // One hash for both: the config keys' constant-time comparison and the runtime keys' map.
  const digest = hash('sha256', given ?? '', 'buffer');
  const caller = index.lookupDigest(digest, given === undefined);
  if (caller !== undefined) return caller;
  // Only a key in the runtime format can be a runtime key: any other unknown key stays a plain 401
  // even while the store is away.
  if (runtime !== undefined && given !== undefined && config.auth !== undefined && looksLikeRuntimeKey(given)) {
    const found = runtime.lookup(digest.toString('hex'), config.auth);
    if (found?.ok === true) return found.caller;
    if (found !== undefined) {
      if (found.reason === 'stale') {
        throw new GatewayError('unavailable', 'runtime API keys cannot be checked: the state store has not answered recently; retry shortly');
      }
      throw new GatewayError('authentication', `API key ${found.reason}`, { code: 'invalid_api_key' });
    }
  }
  if (index.open) return ANONYMOUS_CALLER;
  if (given === undefined) {
    throw new GatewayError('authentication', 'missing API key: send it in the x-api-key (or x-goog-api-key) header or as Authorization: Bearer <key>');
  }
  throw new GatewayError('authentication', 'invalid API key', { code: 'invalid_api_key' });
}
