// Instances on one store hear each other at once, count each other, forget one that says goodbye or
// falls silent past the TTL. The memory store's channel is in process: two registries on it stand for
// two gateways on one Redis (the rolling-restart e2e test runs them on a real one).
import { afterEach, describe, expect, it } from 'vitest';
import { InstanceRegistry } from '../../../src/state/instance-registry.js';
import { MemoryStateStore } from '../../../src/state/memory-store.js';
import { isLoopbackHost, localBackendNotice, localBackendWarning, sharedNotice } from '../../../src/state/sharing-notice.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const started: InstanceRegistry[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((r) => r.stop()));
});

function registry(store: MemoryStateStore, counts: number[], heartbeatMs = 1000): InstanceRegistry {
  const r = new InstanceRegistry(store, { heartbeatMs, onCount: (n) => counts.push(n) });
  started.push(r);
  return r;
}

describe('instance registry', () => {
  it('two instances learn of each other at once, and one that leaves is forgotten', async () => {
    const store = new MemoryStateStore();
    const countsA: number[] = [];
    const countsB: number[] = [];
    const a = registry(store, countsA);
    const b = registry(store, countsB);
    a.start();
    expect(a.list()).toHaveLength(1);
    b.start();
    await sleep(20);
    expect(a.list().map((i) => i.id)).toEqual([a.self.id, b.self.id]);
    // B learnt of A from A's answer to its hello, not from a heartbeat a second later.
    expect(b.list().map((i) => i.id)).toEqual([b.self.id, a.self.id]);
    expect(countsA).toEqual([2]);
    expect(countsB).toEqual([2]);
    await b.stop();
    await sleep(20);
    expect(a.list()).toHaveLength(1);
    expect(countsA).toEqual([2, 1]);
  });

  it('an instance that falls silent is gone after the TTL', async () => {
    const store = new MemoryStateStore();
    const counts: number[] = [];
    const a = registry(store, counts, 50);
    a.start();
    // A crashed process: it said hello once and nothing after.
    await store.publish('instances', JSON.stringify({ id: 'crashed', host: 'h', pid: 1, startedAt: 0 }));
    await sleep(5);
    expect(a.list()).toHaveLength(2);
    await sleep(250);
    expect(a.list()).toHaveLength(1);
    expect(counts).toEqual([2, 1]);
  });

  it('says what is shared, and which hosts are local', () => {
    expect(isLoopbackHost('127.0.0.1')).toBe(true);
    expect(isLoopbackHost('localhost')).toBe(true);
    expect(isLoopbackHost('0.0.0.0')).toBe(false);
    expect(localBackendNotice('memory')).toMatch(/per process.*N times each limit.*state\.backend redis/);
    expect(localBackendNotice('file')).toMatch(/per machine/);
    expect(localBackendWarning('memory', '0.0.0.0')).toBe(localBackendNotice('memory'));
    expect(localBackendWarning('file', '10.0.0.5')).toBe(localBackendNotice('file'));
    expect(localBackendWarning('memory', '127.0.0.1')).toBeUndefined();
    expect(localBackendWarning('redis', '0.0.0.0')).toBeUndefined();
    expect(sharedNotice(3)).toMatch(/^3 gateway instances share this Redis: .*rate limits.*cluster-wide/);
  });
});
