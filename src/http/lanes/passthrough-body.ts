// The pass-through lane's upstream request: the caller's own body with only `model` (and the
// target's configured defaults/overrides) replaced, so unknown fields survive untouched.
import type { ProviderConfig, SamplingOverrides, TargetConfig } from '../../config/types.js';
import type { EncodedRequest } from '../../drivers/types.js';
import { nextApiKey } from '../../drivers/registry.js';
import type { Generation } from '../generation.js';
import { forwardedHeaders } from './forwarded-headers.js';

export function passthroughRequest(gen: Generation, provider: ProviderConfig, model: string, target: TargetConfig, path: string): EncodedRequest {
  const body: Record<string, unknown> = { ...gen.body, model };
  applySettings(body, gen.codec.protocol, target.defaults, false);
  applySettings(body, gen.codec.protocol, target.overrides, true);
  const key = nextApiKey(provider);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (gen.codec.protocol === 'messages') {
    headers['anthropic-version'] = '2023-06-01';
    if (key) headers['x-api-key'] = key;
  } else if (key) {
    headers.authorization = 'Bearer ' + key;
  }
  Object.assign(headers, provider.headers, forwardedHeaders(gen, provider.protocol));
  return { path, headers, body: JSON.stringify(body) };
}

function applySettings(body: Record<string, unknown>, protocol: 'messages' | 'responses', s: SamplingOverrides, force: boolean): void {
  const set = (k: string, v: unknown) => {
    if (v !== undefined && (force || body[k] === undefined)) body[k] = v;
  };
  set(protocol === 'messages' ? 'max_tokens' : 'max_output_tokens', s.maxTokens);
  set('temperature', s.temperature);
  set('top_p', s.topP);
  if (s.reasoningEffort !== undefined) {
    if (protocol === 'responses') {
      const r = (body.reasoning ?? {}) as Record<string, unknown>;
      if (force || r.effort === undefined) body.reasoning = { ...r, effort: s.reasoningEffort };
    } else {
      const oc = (body.output_config ?? {}) as Record<string, unknown>;
      if (force || oc.effort === undefined) body.output_config = { ...oc, effort: s.reasoningEffort };
    }
  }
}
