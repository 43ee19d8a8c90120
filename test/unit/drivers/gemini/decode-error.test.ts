import { describe, expect, it } from 'vitest';
import { geminiDriver } from '../../../../src/drivers/gemini/index.js';
import { fixture } from './support.js';

const decode = (status: number, name: string, headers: Record<string, string> = {}) => geminiDriver.decodeError(status, headers, fixture(name).toString('utf8'));

describe('gemini decodeError (gemini.md §11)', () => {
  it('RESOURCE_EXHAUSTED → rate_limit, retry-after from RetryInfo rounded up', () => {
    const err = decode(429, 'error-resource-exhausted.json');
    expect(err.kind).toBe('rate_limit');
    expect(err.retryAfter).toBe('37');
    expect(err.message).toMatch(/exceeded your current quota/);
    expect(err.upstreamStatus).toBe(429);
  });

  it('an invalid API key is our misconfiguration: bad_gateway, not the caller\'s 400', () => {
    expect(decode(400, 'error-invalid-key.json').kind).toBe('bad_gateway');
  });

  it('an input over the context window → context_overflow', () => {
    expect(decode(400, 'error-context-overflow.json').kind).toBe('context_overflow');
  });

  it('a missing thought signature stays an invalid request with Gemini\'s message', () => {
    const err = decode(400, 'error-missing-signature.json');
    expect(err.kind).toBe('invalid_request');
    expect(err.message).toMatch(/missing a `thought_signature`/);
  });

  it('NOT_FOUND, UNAVAILABLE', () => {
    expect(decode(404, 'error-not-found.json').kind).toBe('not_found');
    expect(decode(503, 'error-unavailable.json').kind).toBe('overloaded');
  });

  it('a proxy page: kind from the status, text kept short, retry-after header honoured', () => {
    const err = decode(502, 'error-proxy-502.html', { 'retry-after': '5' });
    expect(err.kind).toBe('bad_gateway');
    expect(err.message).toMatch(/^upstream answered HTTP 502: 502 Bad Gateway/);
    expect(err.retryAfter).toBe('5');
  });

  it('in-stream error frames use the same table', () => {
    const err = geminiDriver.decodeStreamError(JSON.stringify({ error: { code: 429, status: 'RESOURCE_EXHAUSTED', message: 'slow', details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '2s' }] } }));
    expect(err.kind).toBe('rate_limit');
    expect(err.retryAfter).toBe('2');
  });
});
