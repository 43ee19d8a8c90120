// The Anthropic API's request envelope: paths, the version header, `x-api-key` auth, and which caller
// headers an Anthropic upstream understands. Every request this driver builds goes through here.
import type { Protocol } from '../../ir/types.js';
import type { CallerHeaders, DriverTarget } from '../types.js';

export const ANTHROPIC_VERSION = '2023-06-01';
export const MESSAGES_PATH = '/v1/messages';
export const COUNT_TOKENS_PATH = '/v1/messages/count_tokens';

export function messagesHeaders(target: DriverTarget): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'anthropic-version': ANTHROPIC_VERSION };
  if (target.apiKey) headers['x-api-key'] = target.apiKey;
  return Object.assign(headers, target.headers);
}

/** `anthropic-beta` from any caller; the caller's own `anthropic-version` only from a Messages caller
 * (an OpenAI caller's request is encoded by us, for our version). */
export function messagesForwardedHeaders(caller: CallerHeaders, door: Protocol): Record<string, string> | undefined {
  const beta = caller['anthropic-beta'];
  const version = caller['anthropic-version'] ?? caller['vendor-version'];
  if (beta === undefined && version === undefined) return undefined;
  const out: Record<string, string> = {};
  if (beta !== undefined) out['anthropic-beta'] = Array.isArray(beta) ? beta.join(',') : beta;
  if (door === 'messages' && typeof version === 'string') out['anthropic-version'] = version;
  return out;
}
