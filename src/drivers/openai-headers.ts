// The OpenAI request envelope shared by the Responses and Chat Completions drivers: bearer auth, and
// the one caller header an OpenAI upstream understands.
import type { Protocol } from '../ir/types.js';
import type { CallerHeaders, DriverTarget } from './types.js';

export function openaiHeaders(target: DriverTarget): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (target.apiKey) headers.authorization = 'Bearer ' + target.apiKey;
  return Object.assign(headers, target.headers);
}

/** `OpenAI-Beta`, only from a Responses caller (it names features of OpenAI's own API). */
export function openaiForwardedHeaders(caller: CallerHeaders, door: Protocol): Record<string, string> | undefined {
  const beta = caller['openai-beta'];
  return typeof beta === 'string' && door === 'responses' ? { 'openai-beta': beta } : undefined;
}
