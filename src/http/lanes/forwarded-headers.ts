// Caller headers that are meaningful to an upstream of the same family (anthropic-beta toward an
// Anthropic upstream; OpenAI-Beta toward OpenAI). Everything else stays at the gateway.
import type { ProviderProtocol } from '../../config/types.js';
import type { Generation } from '../generation.js';

export function forwardedHeaders(gen: Generation, protocol: ProviderProtocol): Record<string, string> | undefined {
  const h = gen.request.headers;
  if (protocol === 'messages') {
    const beta = h['anthropic-beta'];
    const version = h['anthropic-version'] ?? h['vendor-version'];
    if (beta === undefined && version === undefined) return undefined;
    const out: Record<string, string> = {};
    if (beta !== undefined) out['anthropic-beta'] = Array.isArray(beta) ? beta.join(',') : beta;
    if (gen.codec.protocol === 'messages' && typeof version === 'string') out['anthropic-version'] = version;
    return out;
  }
  if (protocol === 'responses' || protocol === 'chat') {
    const beta = h['openai-beta'];
    if (typeof beta === 'string' && gen.codec.protocol === 'responses') return { 'openai-beta': beta };
  }
  return undefined;
}
