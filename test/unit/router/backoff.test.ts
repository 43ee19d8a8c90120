import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/errors.js';
import { backoffDelay } from '../../../src/router/attempts.js';

const plain = new GatewayError('overloaded', 'busy');

describe('backoffDelay', () => {
  it('grows exponentially with jitter in the upper half of each step, capped', () => {
    for (let i = 0; i < 200; i++) {
      const d1 = backoffDelay(100, 1000, 1, plain);
      const d2 = backoffDelay(100, 1000, 2, plain);
      const d3 = backoffDelay(100, 1000, 3, plain);
      const d9 = backoffDelay(100, 1000, 9, plain);
      expect(d1).toBeGreaterThanOrEqual(50);
      expect(d1).toBeLessThanOrEqual(100);
      expect(d2).toBeGreaterThanOrEqual(100);
      expect(d2).toBeLessThanOrEqual(200);
      expect(d3).toBeGreaterThanOrEqual(200);
      expect(d3).toBeLessThanOrEqual(400);
      expect(d9).toBeGreaterThanOrEqual(500);
      expect(d9).toBeLessThanOrEqual(1000);
    }
    // jitter: not always the same value
    const seen = new Set(Array.from({ length: 50 }, () => backoffDelay(1000, 10_000, 1, plain)));
    expect(seen.size).toBeGreaterThan(5);
  });

  it('waits at least what retry-after asks (seconds, milliseconds, or an HTTP date)', () => {
    expect(backoffDelay(10, 100, 1, new GatewayError('rate_limit', 'x', { retryAfter: '2' }))).toBe(2000);
    expect(backoffDelay(10, 100, 1, new GatewayError('rate_limit', 'x', { retryAfter: '0.25' }))).toBe(250);
    expect(backoffDelay(10, 100, 1, new GatewayError('rate_limit', 'x', { retryAfterMs: '1500', retryAfter: '1' }))).toBe(1500);
    const date = new Date(Date.now() + 3000).toUTCString();
    const d = backoffDelay(10, 100, 1, new GatewayError('rate_limit', 'x', { retryAfter: date }));
    expect(d).toBeGreaterThan(1500);
    expect(d).toBeLessThanOrEqual(3000);
    // a shorter retry-after never shortens the backoff; garbage is ignored
    expect(backoffDelay(1000, 1000, 1, new GatewayError('rate_limit', 'x', { retryAfter: '0' }))).toBeGreaterThanOrEqual(500);
    expect(backoffDelay(1000, 1000, 1, new GatewayError('rate_limit', 'x', { retryAfter: 'soon' }))).toBeGreaterThanOrEqual(500);
  });
});
