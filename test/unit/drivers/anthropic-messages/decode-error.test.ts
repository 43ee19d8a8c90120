import { describe, expect, it } from 'vitest';
import { anthropicDriver } from '../../../../src/drivers/anthropic-messages/index.js';
import { fixture } from './support.js';

const decode = (status: number, headers: Record<string, string | string[] | undefined>, body: string) =>
  anthropicDriver.decodeError(status, headers, body);

describe('decodeError', () => {
  it('529 overloaded_error → overloaded, retryable, request id from the header', () => {
    const err = decode(529, { 'request-id': 'req_hdr_1', 'retry-after': '3' }, fixture('error-overloaded.json').toString());
    expect(err.kind).toBe('overloaded');
    expect(err.message).toBe('Overloaded');
    expect(err.upstreamStatus).toBe(529);
    expect(err.upstreamRequestId).toBe('req_hdr_1');
    expect(err.retryAfter).toBe('3');
    expect(err.retryable).toBe(true);
  });

  it('429 rate_limit_error keeps retry-after and retry-after-ms; request id falls back to the body', () => {
    const err = decode(429, { 'retry-after': '17', 'retry-after-ms': '16500' }, fixture('error-rate-limit.json').toString());
    expect(err.kind).toBe('rate_limit');
    expect(err.message).toContain('rate limit');
    expect(err.retryAfter).toBe('17');
    expect(err.retryAfterMs).toBe('16500');
    expect(err.upstreamRequestId).toBe('req_011CRate7mX2bq9Wz4Kp3Ld');
  });

  it('400 "prompt is too long" → context_overflow with the original wording', () => {
    const err = decode(400, {}, fixture('error-prompt-too-long.json').toString());
    expect(err.kind).toBe('context_overflow');
    expect(err.message).toBe('prompt is too long: 210000 tokens > 200000 maximum');
    expect(err.retryable).toBe(false);
  });

  it('the max_tokens form of the overflow is recognized too; other 400s stay invalid_request', () => {
    const overflow = JSON.stringify({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'input length and `max_tokens` exceed context limit: 198000 + 8192 > 200000, decrease input length or `max_tokens` and try again' },
    });
    expect(decode(400, {}, overflow).kind).toBe('context_overflow');
    const plain = JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'messages: text content blocks must be non-empty' } });
    const err = decode(400, {}, plain);
    expect(err.kind).toBe('invalid_request');
    expect(err.message).toBe('messages: text content blocks must be non-empty');
  });

  it('HTML 502 from a proxy: status decides, tags stripped, text kept short', () => {
    const err = decode(502, { 'content-type': 'text/html' }, fixture('error-proxy-502.html').toString());
    expect(err.kind).toBe('bad_gateway');
    expect(err.message).toBe('upstream answered HTTP 502: 502 Bad Gateway 502 Bad Gateway nginx');
    const long = decode(503, {}, '<p>' + 'x'.repeat(5000) + '</p>');
    expect(long.kind).toBe('overloaded');
    expect(long.message.length).toBeLessThan(600);
  });

  it('401/403 from the upstream mean our own key was refused → bad_gateway', () => {
    const auth = JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } });
    expect(decode(401, {}, auth).kind).toBe('bad_gateway');
    const perm = JSON.stringify({ type: 'error', error: { type: 'permission_error', message: 'no access' } });
    expect(decode(403, {}, perm).kind).toBe('bad_gateway');
    expect(decode(401, {}, '').kind).toBe('bad_gateway');
  });

  it('error type wins over status; an unknown type falls back to the status', () => {
    const billing = JSON.stringify({ type: 'error', error: { type: 'billing_error', message: 'credit balance too low' } });
    expect(decode(400, {}, billing).kind).toBe('billing');
    const unknown = JSON.stringify({ type: 'error', error: { type: 'brand_new_error', message: 'x' } });
    expect(decode(504, {}, unknown).kind).toBe('timeout');
    const notFound = JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: 'model: claude-nope' } });
    expect(decode(404, {}, notFound).kind).toBe('not_found');
  });
});
