import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { responsesCodec } from '../../../../src/codecs/openai-responses/index.js';
import { GatewayError, type GatewayErrorKind } from '../../../../src/errors.js';

function encoded(err: GatewayError) {
  const e = responsesCodec.encodeError(err, 'req_1');
  return { ...e, json: JSON.parse(e.body).error as Record<string, unknown> };
}

describe('encodeError: the OpenAI error envelope (responses.md §10, mapping.md §14)', () => {
  const table: [GatewayErrorKind, number, string, string | null][] = [
    ['invalid_request', 400, 'invalid_request_error', null],
    ['context_overflow', 400, 'invalid_request_error', 'context_length_exceeded'],
    ['authentication', 401, 'invalid_request_error', 'invalid_api_key'],
    ['billing', 429, 'insufficient_quota', 'insufficient_quota'],
    ['permission', 403, 'invalid_request_error', 'permission_denied'],
    ['not_found', 404, 'invalid_request_error', 'not_found'],
    ['conflict', 409, 'invalid_request_error', 'conflict'],
    ['request_too_large', 413, 'invalid_request_error', 'request_too_large'],
    ['upgrade_required', 426, 'invalid_request_error', 'upgrade_required'],
    ['rate_limit', 429, 'requests', 'rate_limit_exceeded'],
    ['api_error', 500, 'server_error', 'server_error'],
    ['bad_gateway', 502, 'server_error', 'server_error'],
    ['overloaded', 503, 'server_error', 'server_is_overloaded'],
    ['unavailable', 503, 'server_error', 'service_unavailable'],
    ['timeout', 504, 'server_error', 'timeout'],
  ];
  for (const [kind, status, type, code] of table) {
    it(`${kind} → ${status} ${type}/${code}`, () => {
      const e = encoded(new GatewayError(kind, 'it failed'));
      expect(e.status).toBe(status);
      expect(e.json).toEqual({ message: 'it failed', type, param: null, code });
    });
  }

  it('keeps the param and the error’s own code; overflow and quota codes are fixed', () => {
    expect(encoded(new GatewayError('invalid_request', 'bad', { param: 'input[2].content', code: 'invalid_type' })).json).toEqual({
      message: 'bad',
      type: 'invalid_request_error',
      param: 'input[2].content',
      code: 'invalid_type',
    });
    expect(encoded(new GatewayError('context_overflow', 'too long', { code: 'prompt_too_long' })).json.code).toBe('context_length_exceeded');
    expect(encoded(new GatewayError('billing', 'pay up', { code: 'billing_error' })).json.code).toBe('insufficient_quota');
    expect(encoded(new GatewayError('invalid_request', 'gone', { param: 'previous_response_id', code: 'previous_response_not_found' })).json).toMatchObject({
      param: 'previous_response_id',
      code: 'previous_response_not_found',
    });
  });

  it('a 404 about a model says model_not_found', () => {
    expect(encoded(new GatewayError('not_found', 'model "x" is not configured on this gateway')).json.code).toBe('model_not_found');
    expect(encoded(new GatewayError('not_found', 'nothing here', { param: 'model' })).json.code).toBe('model_not_found');
    expect(encoded(new GatewayError('not_found', 'no such response')).json.code).toBe('not_found');
  });

  it('retry headers: retry-after and retry-after-ms kept; x-should-retry false only when not retryable', () => {
    const limited = encoded(new GatewayError('rate_limit', 'slow down', { retryAfter: '7', retryAfterMs: '6500' }));
    expect(limited.headers).toEqual({ 'retry-after': '7', 'retry-after-ms': '6500' });
    expect(encoded(new GatewayError('invalid_request', 'no')).headers).toEqual({ 'x-should-retry': 'false' });
    expect(encoded(new GatewayError('billing', 'no')).headers).toEqual({ 'x-should-retry': 'false' });
    expect(encoded(new GatewayError('overloaded', 'busy')).headers).toEqual({});
  });

  it('the OpenAI SDK reads message, type, param and code and picks the right error class', async () => {
    const e = responsesCodec.encodeError(new GatewayError('invalid_request', 'Missing required parameter: \'model\'.', { param: 'model', code: 'missing_required_parameter' }), 'req_9');
    const client = new OpenAI({
      apiKey: 'k',
      baseURL: 'http://127.0.0.1:9/v1',
      maxRetries: 0,
      fetch: async () => new Response(e.body, { status: e.status, headers: { 'content-type': 'application/json', 'x-request-id': 'req_9', ...e.headers } }),
    });
    const err = await client.responses.create({ model: 'x', input: 'hi' }).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err).toMatchObject({ status: 400, code: 'missing_required_parameter', param: 'model', type: 'invalid_request_error', requestID: 'req_9' });
  });
});
