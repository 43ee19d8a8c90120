import { describe, expect, it } from 'vitest';
import { AwsCredentialCache, type AwsIdentity } from '../../../src/platforms/aws-credentials.js';
import { decodeBedrockError } from '../../../src/platforms/bedrock-errors.js';

const err = (status: number, type: string | undefined, message: string, extra: Record<string, string> = {}) =>
  decodeBedrockError('bedrock-east', status, { ...(type ? { 'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/` } : {}), ...extra }, JSON.stringify({ message }));

describe('Bedrock HTTP errors', () => {
  it('map each type onto our kinds, keeping status, message and retry-after', () => {
    expect(err(429, 'ThrottlingException', 'slow down', { 'retry-after': '3' })).toMatchObject({ kind: 'rate_limit', message: 'slow down', upstreamStatus: 429, retryAfter: '3' });
    expect(err(400, 'ValidationException', 'bad field')).toMatchObject({ kind: 'invalid_request', message: 'bad field' });
    expect(err(400, 'ValidationException', 'Input is too long for requested model.')).toMatchObject({ kind: 'context_overflow' });
    expect(err(404, 'ResourceNotFoundException', 'no model')).toMatchObject({ kind: 'not_found' });
    expect(err(503, 'ServiceUnavailableException', 'busy')).toMatchObject({ kind: 'overloaded' });
    expect(err(429, 'ModelNotReadyException', 'warming')).toMatchObject({ kind: 'overloaded' });
    expect(err(408, 'ModelTimeoutException', 'slow')).toMatchObject({ kind: 'timeout' });
    expect(err(500, 'InternalServerException', 'oops')).toMatchObject({ kind: 'api_error' });
    expect(err(418, 'BrandNewException', 'hm')).toMatchObject({ kind: 'invalid_request', upstreamStatus: 418 });
  });

  it("credential refusals are the deployment's (bad_gateway with the upstream status), without AWS's wording", () => {
    for (const type of ['UnrecognizedClientException', 'InvalidSignatureException', 'ExpiredTokenException', 'AccessDeniedException']) {
      const e = err(403, type, 'The request signature we calculated does not match… canonical string …')!;
      expect(e).toMatchObject({ kind: 'bad_gateway', upstreamStatus: 403 });
      expect(e.message).toContain(type);
      expect(e.message).not.toContain('canonical');
    }
  });

  it("leaves Anthropic's own envelope and non-Bedrock bodies to the Messages driver", () => {
    expect(decodeBedrockError('p', 400, {}, JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'x' } }))).toBeUndefined();
    expect(decodeBedrockError('p', 502, {}, '<html>bad gateway</html>')).toBeUndefined();
  });
});

describe('AwsCredentialCache', () => {
  function setup(lifeMs: number | undefined) {
    let now = 1_000_000;
    let n = 0;
    const calls: (boolean | undefined)[] = [];
    let release: (() => void) | undefined;
    const provider = (options?: { forceRefresh?: boolean }) => {
      calls.push(options?.forceRefresh);
      n++;
      const identity: AwsIdentity = { accessKeyId: `AKID${n}`, secretAccessKey: `s${n}`, ...(lifeMs !== undefined ? { expiration: new Date(now + lifeMs) } : {}) };
      return new Promise<AwsIdentity>((resolve) => (release = () => resolve(identity)));
    };
    const cache = new AwsCredentialCache(provider, () => now);
    return { cache, calls, tick: (ms: number) => (now += ms), release: () => release?.() };
  }

  it('fetches once for concurrent first requests, then answers synchronously', async () => {
    const s = setup(60 * 60_000);
    const a = s.cache.get();
    const b = s.cache.get();
    expect(a).toBe(b);
    s.release();
    expect((await a).accessKeyId).toBe('AKID1');
    expect(s.cache.get()).toMatchObject({ accessKeyId: 'AKID1' });
    expect(s.calls).toEqual([undefined]);
  });

  it('refreshes in the background before expiry (one refresh however many requests), then switches', async () => {
    const s = setup(60 * 60_000);
    const first = s.cache.get();
    s.release();
    await first;
    s.tick(56 * 60_000); // inside the 5-minute window
    expect(s.cache.get()).toMatchObject({ accessKeyId: 'AKID1' }); // served now, refresh started
    expect(s.cache.get()).toMatchObject({ accessKeyId: 'AKID1' });
    expect(s.calls).toEqual([undefined, true]);
    s.release();
    await new Promise((r) => setImmediate(r));
    expect(s.cache.get()).toMatchObject({ accessKeyId: 'AKID2' });
    expect(s.cache.refreshes).toBe(2);
  });

  it('waits for fresh credentials once the old ones are about to expire, or after invalidate()', async () => {
    const s = setup(10_000);
    const p = s.cache.get();
    s.release();
    await p;
    s.tick(9_500); // within the last tenth
    const waiting = s.cache.get();
    expect(waiting).toBeInstanceOf(Promise);
    s.release();
    expect((await waiting).accessKeyId).toBe('AKID2');
    s.cache.invalidate();
    const again = s.cache.get();
    expect(again).toBeInstanceOf(Promise);
    s.release();
    expect((await again).accessKeyId).toBe('AKID3');
  });

  it('never refreshes long-term keys', async () => {
    const s = setup(undefined);
    const p = s.cache.get();
    s.release();
    await p;
    s.tick(365 * 24 * 3600_000);
    expect(s.cache.get()).toMatchObject({ accessKeyId: 'AKID1' });
    expect(s.calls).toHaveLength(1);
  });
});
