import { describe, expect, it } from 'vitest';
import { chatDriver } from '../../../../src/drivers/openai-chat/index.js';
import { fixture } from './support.js';

function decode(status: number, name: string, headers: Record<string, string | string[] | undefined> = {}) {
  return chatDriver.decodeError(status, headers, fixture(name).toString('utf8'));
}

describe('chat decodeError', () => {
  it('OpenAI context_length_exceeded → context_overflow, message, param and code kept', () => {
    const err = decode(400, 'error-openai-context-length.json', { 'x-request-id': 'req_123' });
    expect(err.kind).toBe('context_overflow');
    expect(err.message).toMatch(/^This model's maximum context length is 128000 tokens/);
    expect(err.param).toBe('messages');
    expect(err.code).toBe('context_length_exceeded');
    expect(err.upstreamStatus).toBe(400);
    expect(err.upstreamRequestId).toBe('req_123');
  });

  it('vLLM bare error object: context wording → context_overflow; other 400s → invalid_request', () => {
    expect(decode(400, 'error-vllm.json').kind).toBe('context_overflow');
    const bad = decode(400, 'error-vllm-bad-request.json');
    expect(bad.kind).toBe('invalid_request');
    expect(bad.message).toContain('"auto" tool choice requires');
  });

  it('context overflow is never reported as a 5xx, even when the upstream says 500', () => {
    expect(decode(500, 'error-vllm.json').kind).toBe('context_overflow');
  });

  it("OpenRouter numeric codes; a provider's context error inside metadata.raw is recognized", () => {
    const err = decode(400, 'error-openrouter.json');
    expect(err.kind).toBe('context_overflow');
    expect(err.message).toBe('Provider returned error');
    expect(err.code).toBeUndefined();
    const limited = decode(429, 'error-openrouter-rate-limit.json', { 'retry-after': '7', 'retry-after-ms': '6500' });
    expect([limited.kind, limited.retryAfter, limited.retryAfterMs]).toEqual(['rate_limit', '7', '6500']);
  });

  it('429 insufficient_quota → billing; plain 429 → rate_limit', () => {
    expect(decode(429, 'error-insufficient-quota.json').kind).toBe('billing');
    expect(chatDriver.decodeError(429, {}, '{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}').kind).toBe('rate_limit');
  });

  it('401/403 with our own upstream key → bad_gateway, never the caller’s fault', () => {
    expect(decode(401, 'error-invalid-key.json').kind).toBe('bad_gateway');
    expect(chatDriver.decodeError(403, {}, '{"error":{"message":"forbidden"}}').kind).toBe('bad_gateway');
  });

  it('Ollama string error and FastAPI detail', () => {
    const ollama = decode(404, 'error-ollama.json');
    expect([ollama.kind, ollama.message]).toEqual(['not_found', 'model "llama9" not found, try pulling it first']);
    expect(chatDriver.decodeError(404, {}, '{"detail":"Not Found"}').message).toBe('Not Found');
  });

  it('HTML from a proxy is wrapped, stripped and truncated; status decides the kind', () => {
    const err = decode(502, 'error-proxy-502.html', { 'x-request-id': ['a', 'b'] });
    expect(err.kind).toBe('bad_gateway');
    expect(err.message).toBe('upstream answered HTTP 502: 502 Bad Gateway 502 Bad Gateway nginx/1.25.3');
    expect(err.upstreamRequestId).toBe('a');
    const long = chatDriver.decodeError(503, {}, 'x'.repeat(5000));
    expect(long.kind).toBe('overloaded');
    expect(long.message.length).toBeLessThan(600);
    expect(chatDriver.decodeError(504, {}, '').message).toBe('upstream answered HTTP 504');
  });
});
