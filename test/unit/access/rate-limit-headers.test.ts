import { describe, expect, it } from 'vitest';
import { openAiDuration, rateLimitHeaders, rfc3339 } from '../../../src/access/rate-limit-headers.js';
import type { CheckMeta } from '../../../src/access/admission-plan.js';

const now = Date.parse('2026-11-25T08:00:00.000Z');
const meta: CheckMeta[] = [
  { scope: 'key', owner: 'alice', limit: 'rpm' },
  { scope: 'key', owner: 'alice', limit: 'tpm' },
  { scope: 'team', owner: 'research', limit: 'rpm' },
  { scope: 'key', owner: 'alice', limit: 'concurrency' },
];

describe('rate-limit headers', () => {
  it('Messages: anthropic-ratelimit-* of the tightest limit, this request counted, reset as RFC 3339', () => {
    const states = [
      { used: 10, limit: 60, resetMs: 12_000 },
      { used: 5000, limit: 200_000, resetMs: 30_500 },
      { used: 598, limit: 600, resetMs: 2_000 },
      { used: 1, limit: 4, resetMs: 0 },
    ];
    expect(rateLimitHeaders('messages', meta, states, now, true)).toEqual({
      'anthropic-ratelimit-requests-limit': '600',
      'anthropic-ratelimit-requests-remaining': '1',
      'anthropic-ratelimit-requests-reset': '2026-11-25T08:00:02Z',
      'anthropic-ratelimit-tokens-limit': '200000',
      'anthropic-ratelimit-tokens-remaining': '195000',
      'anthropic-ratelimit-tokens-reset': '2026-11-25T08:00:31Z',
    });
  });

  it('Responses: x-ratelimit-* with OpenAI durations; a refused request is not counted', () => {
    const states = [
      { used: 60, limit: 60, resetMs: 6_000 },
      { used: 0, limit: 1000, resetMs: 0 },
    ];
    expect(rateLimitHeaders('responses', meta.slice(0, 2), states, now, false)).toEqual({
      'x-ratelimit-limit-requests': '60',
      'x-ratelimit-remaining-requests': '0',
      'x-ratelimit-reset-requests': '6s',
      'x-ratelimit-limit-tokens': '1000',
      'x-ratelimit-remaining-tokens': '1000',
      'x-ratelimit-reset-tokens': '0ms',
    });
  });

  it('an empty window filled by this request resets a minute later; no limits, no headers', () => {
    const h = rateLimitHeaders('responses', meta.slice(0, 1), [{ used: 0, limit: 5, resetMs: 0 }], now, true);
    expect(h['x-ratelimit-remaining-requests']).toBe('4');
    expect(h['x-ratelimit-reset-requests']).toBe('1m0s');
    expect(rateLimitHeaders('messages', meta.slice(3), [{ used: 0, limit: 4, resetMs: 0 }], now, true)).toEqual({});
  });

  it('formats durations as OpenAI does and RFC 3339 without fractions, never early', () => {
    expect(openAiDuration(250)).toBe('250ms');
    expect(openAiDuration(1000)).toBe('1s');
    expect(openAiDuration(1500)).toBe('1.5s');
    expect(openAiDuration(8640)).toBe('8.64s');
    expect(openAiDuration(360_000)).toBe('6m0s');
    expect(openAiDuration(3_723_000)).toBe('1h2m3s');
    expect(rfc3339(Date.parse('2026-11-25T08:00:00.001Z'))).toBe('2026-11-25T08:00:01Z');
  });
});
