// The credential caches' bound on one fetch (issue 32, R1): a source that never settles fails its
// waiters at the bound with the deployment's error (bad_gateway, upstream 401: the router falls back
// and the circuit counts it), the fetch's signal fires, and the next request starts a new fetch.
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/errors.js';
import { AwsCredentialCache, type AwsIdentity } from '../../../src/platforms/aws-credentials.js';
import { credentialFetchBoundMs, CredentialFetchTimeout, fetchWithin } from '../../../src/platforms/credential-deadline.js';
import { TokenCache } from '../../../src/platforms/token-cache.js';

describe('credential fetch deadline', () => {
  it('is the connect timeout, at most 10 s', () => {
    expect(credentialFetchBoundMs(3000)).toBe(3000);
    expect(credentialFetchBoundMs(60_000)).toBe(10_000);
  });

  it('fetchWithin rejects at the bound and fires the signal; a later answer is dropped', async () => {
    let signal: AbortSignal | undefined;
    let answer: ((v: string) => void) | undefined;
    const t0 = Date.now();
    const p = fetchWithin(80, (s) => ((signal = s), new Promise<string>((r) => (answer = r))));
    const err = await p.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CredentialFetchTimeout);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(75);
    expect(signal!.aborted).toBe(true);
    answer!('late');
  });

  it('TokenCache: waiters fail at the bound as the deployment’s error; the next get fetches anew', async () => {
    const signals: AbortSignal[] = [];
    let answer = false;
    const cache = new TokenCache(
      (_force, signal) => {
        signals.push(signal);
        return answer ? Promise.resolve({ token: 'ya29.ok', expiresAt: Date.now() + 3600_000 }) : new Promise(() => undefined);
      },
      'upstream v: Google credentials',
      Date.now,
      100,
    );
    const waiters = [cache.get(), cache.get(), cache.get()];
    expect(signals).toHaveLength(1);
    const errors = await Promise.all(waiters.map((w) => Promise.resolve(w).catch((e: unknown) => e)));
    for (const err of errors) {
      expect(err).toBeInstanceOf(GatewayError);
      expect(err).toMatchObject({ kind: 'bad_gateway', upstreamStatus: 401 });
      expect((err as Error).message).toBe('upstream v: Google credentials: could not get an access token (no answer within 100 ms)');
    }
    expect(signals[0]!.aborted).toBe(true);
    answer = true;
    expect(await cache.get()).toBe('ya29.ok');
    expect(signals).toHaveLength(2);
  });

  it('AwsCredentialCache: a provider that never settles fails at the bound; the next get asks again', async () => {
    let calls = 0;
    let answer = false;
    const identity: AwsIdentity = { accessKeyId: 'AKIDOK', secretAccessKey: 's' };
    const cache = new AwsCredentialCache(
      () => {
        calls++;
        return answer ? Promise.resolve(identity) : new Promise(() => undefined);
      },
      Date.now,
      100,
    );
    const a = cache.get();
    const b = cache.get();
    expect(calls).toBe(1);
    await expect(a).rejects.toBeInstanceOf(CredentialFetchTimeout);
    await expect(b).rejects.toBeInstanceOf(CredentialFetchTimeout);
    answer = true;
    expect(await cache.get()).toBe(identity);
    expect(calls).toBe(2);
  });
});
