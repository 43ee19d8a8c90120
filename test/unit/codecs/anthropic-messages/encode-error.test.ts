import { describe, expect, it } from 'vitest';
import { messagesCodec } from '../../../../src/codecs/anthropic-messages/index.js';
import { ERROR_KINDS, GatewayError, type GatewayErrorKind } from '../../../../src/errors.js';

const TYPES: Record<GatewayErrorKind, [number, string, boolean]> = {
  invalid_request: [400, 'invalid_request_error', false],
  context_overflow: [400, 'invalid_request_error', false],
  authentication: [401, 'authentication_error', false],
  billing: [402, 'billing_error', false],
  permission: [403, 'permission_error', false],
  not_found: [404, 'not_found_error', false],
  conflict: [409, 'conflict_error', true],
  request_too_large: [413, 'request_too_large', false],
  upgrade_required: [426, 'invalid_request_error', false],
  rate_limit: [429, 'rate_limit_error', true],
  api_error: [500, 'api_error', true],
  bad_gateway: [502, 'api_error', true],
  overloaded: [529, 'overloaded_error', true],
  unavailable: [503, 'api_error', true],
  timeout: [504, 'timeout_error', true],
};

describe('messages encodeError', () => {
  it.each(ERROR_KINDS)('%s → status, error.type and retry hint', (kind) => {
    const [status, type, retryable] = TYPES[kind];
    const out = messagesCodec.encodeError(new GatewayError(kind, 'something "quoted" failed'), 'req_011CSHoEeqs5C35K2UUqR7Fy');
    expect(out.status).toBe(status);
    const body = JSON.parse(out.body);
    expect(body.type).toBe('error');
    expect(body.error.type).toBe(type);
    expect(body.request_id).toBe('req_011CSHoEeqs5C35K2UUqR7Fy');
    expect(out.headers['x-should-retry']).toBe(retryable ? undefined : 'false');
  });

  it('renders the exact envelope and passes retry-after headers through', () => {
    const out = messagesCodec.encodeError(new GatewayError('rate_limit', 'Rate limited', { retryAfter: '12', retryAfterMs: '11500' }), 'req_1');
    expect(out).toEqual({
      status: 429,
      body: '{"type":"error","error":{"type":"rate_limit_error","message":"Rate limited"},"request_id":"req_1"}',
      headers: { 'retry-after': '12', 'retry-after-ms': '11500' },
    });
  });

  it('context overflow always says "prompt is too long" (Claude Code auto-compacts on it)', () => {
    const rewritten = JSON.parse(messagesCodec.encodeError(new GatewayError('context_overflow', 'maximum context length is 128000 tokens'), 'r').body);
    expect(rewritten.error.message).toBe('prompt is too long: maximum context length is 128000 tokens');
    const kept = JSON.parse(messagesCodec.encodeError(new GatewayError('context_overflow', 'prompt is too long: 210000 tokens > 200000 maximum'), 'r').body);
    expect(kept.error.message).toBe('prompt is too long: 210000 tokens > 200000 maximum');
  });
});
