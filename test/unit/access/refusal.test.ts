// Refusals rendered by the real codecs: the statuses, types and codes each door's clients expect.
import { describe, expect, it } from 'vitest';
import { refusalError } from '../../../src/access/refusal.js';
import { encodeError as encodeMessages } from '../../../src/codecs/anthropic-messages/encode-error.js';
import { encodeError as encodeResponses } from '../../../src/codecs/openai-error.js';

describe('refusals', () => {
  it('a limit: 429 rate_limit_error / rate_limit_exceeded with retry-after in whole seconds', () => {
    const err = refusalError({ scope: 'key', owner: 'alice', limit: 'rpm' }, { used: 60, limit: 60, resetMs: 1200 }, 1200);
    expect(err.message).toBe('rate limit of key "alice" reached: 60 requests per minute; retry in 2 s');
    const m = encodeMessages(err, 'req_1');
    expect(m.status).toBe(429);
    expect(JSON.parse(m.body).error.type).toBe('rate_limit_error');
    expect(m.headers).toMatchObject({ 'retry-after': '2', 'retry-after-ms': '1200' });
    const r = encodeResponses(err, 'req_1');
    expect(r.status).toBe(429);
    expect(JSON.parse(r.body).error.code).toBe('rate_limit_exceeded');
    expect(r.headers['retry-after']).toBe('2');
  });

  it('never asks to retry after 0 s, and names team limits and concurrency', () => {
    const err = refusalError({ scope: 'team', owner: 'research', limit: 'concurrency' }, { used: 4, limit: 4, resetMs: 0 }, 0);
    expect(err.message).toBe('rate limit of team "research" reached: 4 concurrent requests; retry in 1 s');
    expect(err.retryAfter).toBe('1');
    const tpm = refusalError({ scope: 'key', owner: 'a', limit: 'tpm' }, { used: 1200, limit: 1000, resetMs: 30_000 }, 30_000);
    expect(tpm.message).toContain('1000 tokens per minute');
  });

  it('a budget: Messages 402 billing_error, Responses 429 insufficient_quota, naming the budget and its reset', () => {
    const err = refusalError(
      { scope: 'team', owner: 'research', limit: 'budget', period: 'month', resetAtMs: Date.parse('2026-12-01T00:00:00Z') },
      { used: 50_120_000, limit: 50_000_000, resetMs: 0 },
      0,
    );
    expect(err.message).toBe('the monthly budget of team "research" ($50.00) is used up (spent $50.12); it resets at 2026-12-01T00:00:00Z');
    const m = encodeMessages(err, 'req_1');
    expect(m.status).toBe(402);
    expect(JSON.parse(m.body).error.type).toBe('billing_error');
    expect(m.headers['x-should-retry']).toBe('false');
    const r = encodeResponses(err, 'req_1');
    expect(r.status).toBe(429);
    expect(JSON.parse(r.body).error).toMatchObject({ type: 'insufficient_quota', code: 'insufficient_quota' });
  });

  it('a total budget says it does not reset', () => {
    const err = refusalError({ scope: 'key', owner: 'a', limit: 'budget', period: 'total' }, { used: 5_000_000, limit: 5_000_000, resetMs: 0 }, 0);
    expect(err.message).toBe('the total budget of key "a" ($5.00) is used up (spent $5.00); it does not reset (period: total)');
  });
});
