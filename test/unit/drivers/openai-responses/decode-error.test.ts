import { describe, expect, it } from 'vitest';
import { KIND_INFO } from '../../../../src/errors.js';
import { responsesDriver } from '../../../../src/drivers/openai-responses/index.js';
import { fixtureBytes } from './support.js';

const decodeError = responsesDriver.decodeError;

describe('responses decodeError', () => {
  it('context_length_exceeded → context_overflow (a 400, never 5xx), message, param and code kept', () => {
    const err = decodeError(400, { 'x-request-id': 'req_1' }, fixtureBytes('error-context-length.json').toString('utf8'));
    expect(err.kind).toBe('context_overflow');
    expect(KIND_INFO[err.kind].responsesStatus).toBe(400);
    expect(err.message).toBe('Your input exceeds the context window of this model. Please adjust your input and try again.');
    expect(err.param).toBe('input');
    expect(err.code).toBe('context_length_exceeded');
    expect(err.upstreamStatus).toBe(400);
    expect(err.upstreamRequestId).toBe('req_1');
  });

  it('429 insufficient_quota → billing (not retryable)', () => {
    const err = decodeError(429, {}, fixtureBytes('error-insufficient-quota.json').toString('utf8'));
    expect(err.kind).toBe('billing');
    expect(err.retryable).toBe(false);
  });

  it('429 rate limit keeps retry-after, retry-after-ms and the request id', () => {
    const body = JSON.stringify({ error: { message: 'slow down', type: 'requests', param: null, code: 'rate_limit_exceeded' } });
    const err = decodeError(429, { 'retry-after': '7', 'retry-after-ms': '6500', 'x-request-id': ['req_2', 'dup'] }, body);
    expect(err.kind).toBe('rate_limit');
    expect(err.message).toBe('slow down');
    expect(err.retryAfter).toBe('7');
    expect(err.retryAfterMs).toBe('6500');
    expect(err.upstreamRequestId).toBe('req_2');
    expect(err.param).toBeUndefined();
    // A 429 with an unknown code is still a rate limit, from the status.
    expect(decodeError(429, {}, JSON.stringify({ error: { message: 'x', code: 'tokens' } })).kind).toBe('rate_limit');
  });

  it('model_not_found → not_found, whatever the status', () => {
    expect(decodeError(404, {}, fixtureBytes('error-model-not-found.json').toString('utf8')).kind).toBe('not_found');
    expect(decodeError(400, {}, fixtureBytes('error-model-not-found.json').toString('utf8')).kind).toBe('not_found');
  });

  it('our own credentials refused (401/403) → bad_gateway, not the caller’s fault', () => {
    const body = JSON.stringify({ error: { message: 'Incorrect API key provided', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } });
    expect(decodeError(401, {}, body).kind).toBe('bad_gateway');
    expect(decodeError(403, {}, JSON.stringify({ error: { message: 'no', code: 'unsupported_country_region_territory' } })).kind).toBe('bad_gateway');
  });

  it('status fallbacks: 400 invalid_request, 500 api_error, 503 overloaded, 504 timeout', () => {
    const body = (code: string | null) => JSON.stringify({ error: { message: 'm', type: 'server_error', param: null, code } });
    expect(decodeError(400, {}, body('invalid_value')).kind).toBe('invalid_request');
    expect(decodeError(500, {}, body('server_error')).kind).toBe('api_error');
    expect(decodeError(503, {}, body('server_is_overloaded')).kind).toBe('overloaded');
    expect(decodeError(500, {}, body('slow_down')).kind).toBe('overloaded');
    expect(decodeError(504, {}, body(null)).kind).toBe('timeout');
  });

  it('an HTML proxy page is wrapped: tags stripped, text truncated, kind from the status', () => {
    const html = '<html><head><style>body{color:red}</style></head><body><h1>502 Bad Gateway</h1>' + '<p>nginx</p>'.repeat(200) + '</body></html>';
    const err = decodeError(502, { 'content-type': 'text/html' }, html);
    expect(err.kind).toBe('bad_gateway');
    expect(err.message.startsWith('upstream answered HTTP 502: 502 Bad Gateway nginx')).toBe(true);
    expect(err.message).not.toContain('<');
    expect(err.message).not.toContain('color:red');
    expect(err.message.length).toBeLessThanOrEqual('upstream answered HTTP 502: '.length + 501);
  });

  it('plain text and empty bodies', () => {
    expect(decodeError(500, {}, 'Internal Server Error').message).toBe('upstream answered HTTP 500: Internal Server Error');
    expect(decodeError(500, {}, '').message).toBe('upstream answered HTTP 500');
    // A compatible server saying "context length" only in prose is still a context overflow.
    expect(decodeError(400, {}, "This model's maximum context length is 8192 tokens").kind).toBe('context_overflow');
  });

  it('a string error and a bare error object are read too', () => {
    expect(decodeError(400, {}, JSON.stringify({ error: 'bad thing' })).message).toBe('bad thing');
    const bare = decodeError(400, {}, JSON.stringify({ message: 'bare', code: 'context_length_exceeded' }));
    expect(bare.message).toBe('bare');
    expect(bare.kind).toBe('context_overflow');
  });
});
