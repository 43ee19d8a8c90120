import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/errors.js';
import { TokenCache, type FetchedToken } from '../../../src/platforms/token-cache.js';

function source(lifetimeMs: number, clock: { now: number }) {
  let n = 0;
  const calls: Array<(t: FetchedToken) => void> = [];
  const fetch = () => new Promise<FetchedToken>((resolve) => calls.push(resolve));
  const settle = () => {
    const resolve = calls.shift()!;
    n++;
    resolve({ token: `t${n}`, expiresAt: clock.now + lifetimeMs });
  };
  return { fetch, settle, pending: () => calls.length };
}

describe('TokenCache', () => {
  it('one refresh in flight however many wait; cached until due', async () => {
    const clock = { now: 1_000_000 };
    const s = source(3600_000, clock);
    const cache = new TokenCache(s.fetch, 'upstream p: test', () => clock.now);
    const waiting = Array.from({ length: 50 }, () => cache.get());
    expect(s.pending()).toBe(1);
    s.settle();
    expect(new Set(await Promise.all(waiting))).toEqual(new Set(['t1']));
    clock.now += 3600_000 - 300_001; // just before the 5-minute window
    expect(cache.get()).toBe('t1');
    expect(s.pending()).toBe(0);
  });

  it('inside the refresh window serves the valid token and refreshes once behind it', async () => {
    const clock = { now: 0 };
    const s = source(2_000, clock); // short-lived: the window is half its life
    const cache = new TokenCache(s.fetch, 'upstream p: test', () => clock.now);
    const first = cache.get();
    s.settle();
    expect(await first).toBe('t1');
    clock.now = 1_200;
    expect(cache.get()).toBe('t1');
    expect(cache.get()).toBe('t1');
    expect(s.pending()).toBe(1);
    s.settle();
    await new Promise((r) => setImmediate(r));
    expect(cache.get()).toBe('t2');
    expect(cache.refreshes).toBe(2);
  });

  it('an expired token waits for the refresh; a failed refresh is a 502-kind error naming the source, not the secret', async () => {
    const clock = { now: 0 };
    let fail = false;
    const cache = new TokenCache(
      async () => {
        if (fail) throw new Error('secret-material-xyz rejected');
        return { token: 'tok', expiresAt: clock.now + 1000 };
      },
      'upstream p: Google credentials',
      () => clock.now,
    );
    expect(await cache.get()).toBe('tok');
    clock.now = 5000;
    fail = true;
    const err = await Promise.resolve(cache.get()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayError);
    expect(err).toMatchObject({ kind: 'bad_gateway', upstreamStatus: 401 });
    expect((err as Error).message).toBe('upstream p: Google credentials: could not get an access token');
    fail = false;
    expect(await cache.get()).toBe('tok'); // the next call tries again
  });

  it('a background refresh that fails keeps the valid token serving and is not retried on every request', async () => {
    const clock = { now: 0 };
    let calls = 0;
    let fail = false;
    const cache = new TokenCache(
      async () => {
        calls++;
        if (fail) throw new Error('down');
        return { token: `t${calls}`, expiresAt: clock.now + 10_000 };
      },
      'upstream p: test',
      () => clock.now,
    );
    expect(await cache.get()).toBe('t1');
    fail = true;
    clock.now = 6_000; // due (half of 10 s), still valid
    expect(cache.get()).toBe('t1');
    await new Promise((r) => setImmediate(r));
    expect(calls).toBe(2);
    for (let i = 0; i < 10; i++) expect(cache.get()).toBe('t1');
    await new Promise((r) => setImmediate(r));
    expect(calls).toBe(2); // within the retry pause
    clock.now = 7_100;
    fail = false;
    expect(cache.get()).toBe('t1');
    await new Promise((r) => setImmediate(r));
    expect(calls).toBe(3);
    expect(cache.get()).toBe('t3');
  });

  it('invalidate: a refused token is dropped (unless just fetched) and the next fetch is forced', async () => {
    const clock = { now: 0 };
    const forced: boolean[] = [];
    const cache = new TokenCache(
      async (force) => {
        forced.push(force);
        return { token: `t${forced.length}`, expiresAt: clock.now + 3600_000 };
      },
      'upstream p: test',
      () => clock.now,
    );
    expect(await cache.get()).toBe('t1');
    clock.now = 1000;
    cache.invalidate(); // a late refusal of a request that carried an older token: ignored
    expect(cache.get()).toBe('t1');
    clock.now = 5000;
    cache.invalidate();
    expect(await cache.get()).toBe('t2');
    expect(forced).toEqual([false, true]);
  });
});
