import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/load-config.js';
import { TokenCache } from '../../../src/platforms/token-cache.js';
import { decodeGoogleError, vertexModelPath, vertexPlatform } from '../../../src/platforms/vertex.js';

describe('Vertex AI: addresses', () => {
  it('Anthropic models: rawPredict, streamRawPredict, and the count-tokens model', () => {
    expect(vertexModelPath('p', 'us-east5', 'messages', 'claude-sonnet-4-5@20250929', 'generate', false)).toBe(
      '/projects/p/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict',
    );
    expect(vertexModelPath('p', 'global', 'messages', 'claude-x', 'generate', true)).toBe('/projects/p/locations/global/publishers/anthropic/models/claude-x:streamRawPredict');
    expect(vertexModelPath('p', 'global', 'messages', 'claude-x', 'count_tokens', false)).toBe('/projects/p/locations/global/publishers/anthropic/models/count-tokens:rawPredict');
    expect(vertexModelPath('p', 'r', 'messages', 'a/b', 'generate', false)).toContain('/models/a%2Fb:rawPredict');
  });

  it('Gemini models (protocol gemini): generateContent, streamGenerateContent with SSE, countTokens', () => {
    expect(vertexModelPath('p', 'us-central1', 'gemini', 'gemini-2.5-pro', 'generate', false)).toBe('/projects/p/locations/us-central1/publishers/google/models/gemini-2.5-pro:generateContent');
    expect(vertexModelPath('p', 'us-central1', 'gemini', 'gemini-2.5-pro', 'generate', true)).toBe(
      '/projects/p/locations/us-central1/publishers/google/models/gemini-2.5-pro:streamGenerateContent?alt=sse',
    );
    expect(vertexModelPath('p', 'us-central1', 'gemini', 'gemini-2.5-pro', 'count_tokens', false)).toBe('/projects/p/locations/us-central1/publishers/google/models/gemini-2.5-pro:countTokens');
    expect(() => vertexModelPath('p', 'r', 'chat', 'm', 'generate', false)).toThrow(/does not serve protocol chat/);
  });

  it('the global location has its own host; regional ones their own', () => {
    const cfg = resolveConfig({ auth: { open: true }, providers: { v: { protocol: 'messages', platform: 'vertex', region: 'global', project: 'p' } }, models: { m: { provider: 'v', model: 'claude-x' } } }, 'test');
    expect(cfg.providers.get('v')!.baseUrl).toBe('https://aiplatform.googleapis.com/v1');
    const eu = resolveConfig({ auth: { open: true }, providers: { v: { protocol: 'messages', platform: 'vertex', region: 'eu', project: 'p' } }, models: { m: { provider: 'v', model: 'claude-x' } } }, 'test');
    expect(eu.providers.get('v')!.baseUrl).toBe('https://aiplatform.eu.rep.googleapis.com/v1');
    const regional = resolveConfig({ auth: { open: true }, providers: { v: { protocol: 'messages', platform: 'vertex', region: 'europe-west1', project: 'p' } }, models: { m: { provider: 'v', model: 'claude-x' } } }, 'test');
    expect(regional.providers.get('v')!.origin).toBe('https://europe-west1-aiplatform.googleapis.com');
  });

  it('the envelope: model out, anthropic_version in, stream and everything else kept; the Google token as the bearer', async () => {
    const cfg = resolveConfig({ auth: { open: true }, providers: { v: { protocol: 'messages', platform: 'vertex', region: 'us-east5', project: 'p' } }, models: { m: { provider: 'v', model: 'claude-x' } } }, 'test');
    const platform = vertexPlatform(cfg.providers.get('v')!, new TokenCache(async () => ({ token: 'ya29.t', expiresAt: Date.now() + 3600_000 }), 'test'));
    const body = '{"model":"claude-x","max_tokens":5,"stream":true,"messages":[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]}],"x_future":1.50}';
    const headers = { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': 'k', 'anthropic-beta': 'b1,b2' };
    const out = await platform.prepare({ path: '/v1/messages', headers, body, model: 'claude-x', stream: true, operation: 'generate' });
    expect(out.path).toBe('/projects/p/locations/us-east5/publishers/anthropic/models/claude-x:streamRawPredict');
    expect(out.body).toBe('{"anthropic_version":"vertex-2023-10-16","max_tokens":5,"stream":true,"messages":[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]}],"x_future":1.50}');
    expect(out.headers).toEqual({ 'content-type': 'application/json', 'anthropic-beta': 'b1,b2', authorization: 'Bearer ya29.t' });
    const count = await platform.prepare({ path: '/v1/messages/count_tokens', headers, body: '{"model":"claude-x","messages":[]}', model: 'claude-x', stream: false, operation: 'count_tokens' });
    expect(count.path).toBe('/projects/p/locations/us-east5/publishers/anthropic/models/count-tokens:rawPredict');
    expect(count.body).toBe('{"anthropic_version":"vertex-2023-10-16","model":"claude-x","messages":[]}');
    expect(platform.streamBody).toBeUndefined(); // Anthropic's own SSE
  });
});

describe('Vertex AI: Google error shapes', () => {
  const decode = (status: number, body: unknown, headers: Record<string, string> = {}) => decodeGoogleError('vx', status, headers, JSON.stringify(body));

  it('maps google.rpc status names onto our kinds', () => {
    expect(decode(429, { error: { code: 429, message: 'Quota exceeded', status: 'RESOURCE_EXHAUSTED' } }, { 'retry-after': '3' })).toMatchObject({ kind: 'rate_limit', retryAfter: '3', upstreamStatus: 429, message: 'Vertex AI: Quota exceeded' });
    const denied = decode(403, { error: { code: 403, message: "Permission 'aiplatform.endpoints.predict' denied on resource '//aiplatform.googleapis.com/projects/acme-prod-ml-7731/locations/us-east5'", status: 'PERMISSION_DENIED' } })!;
    expect(denied).toMatchObject({ kind: 'bad_gateway', upstreamStatus: 403, message: "upstream vx: Vertex AI refused the deployment's Google credentials (PERMISSION_DENIED)" });
    // Google's text (project, resource path) is the cause, for the log; never the caller's message.
    expect((denied.cause as Error).message).toMatch(/^Vertex AI: Permission .*projects\/acme-prod-ml-7731/);
    expect(decode(403, { error: { code: 403, message: 'denied' } })!.message).toBe("upstream vx: Vertex AI refused the deployment's Google credentials (HTTP 403)");
    expect(decode(401, { error: { code: 401, message: 'Request had invalid authentication credentials.', status: 'UNAUTHENTICATED' } })!.message).toMatch(/^upstream vx: Vertex AI refused the deployment's Google credentials \(UNAUTHENTICATED\)/);
    expect(decode(404, { error: { code: 404, message: 'Publisher Model not found.', status: 'NOT_FOUND' } })!.kind).toBe('not_found');
    expect(decode(400, { error: { code: 400, message: 'bad', status: 'INVALID_ARGUMENT' } })!.kind).toBe('invalid_request');
    expect(decode(503, { error: { code: 503, message: 'busy', status: 'UNAVAILABLE' } })!.kind).toBe('overloaded');
    expect(decode(504, { error: { code: 504, message: 'slow', status: 'DEADLINE_EXCEEDED' } })!.kind).toBe('timeout');
  });

  it('reads the array form of the streaming methods, and leaves Anthropic-shaped errors and plain text to the driver', () => {
    expect(decode(429, [{ error: { code: 429, message: 'Quota', status: 'RESOURCE_EXHAUSTED' } }])!.kind).toBe('rate_limit');
    expect(decode(529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })).toBeUndefined();
    expect(decodeGoogleError('vx', 502, {}, '<html>Bad Gateway</html>')).toBeUndefined();
  });
});
