// Instances on one store hear each other at once, count each other, forget one that says goodbye or
// falls silent past the TTL. The memory store's channel is in process: two registries on it stand for
// two gateways on one Redis (the rolling-restart e2e test runs them on a real one).
import { afterEach, describe, expect, it } from 'vitest';
import { InstanceRegistry } from '../../../src/state/instance-registry.js';
import { MemoryStateStore } from '../../../src/state/memory-store.js';
import { resolveConfig } from '../../../src/config/load-config.js';
import { isLoopbackHost, localBackendNotice, localBackendWarning, memoryClaimsNotice, sharedNotice } from '../../../src/state/sharing-notice.js';

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

  it('on memory, says that id claims die with the process: a warning when several keys share a Responses upstream', () => {
    const config = (backend: string, keys: number, protocol: string) =>
      resolveConfig(
        {
          auth: { keys: Array.from({ length: keys }, (_, i) => ({ name: `k${i}`, key: `sk-claims-notice-${i}` })) },
          state: { backend, ...(backend === 'file' ? { path: '/nonexistent/never-opened' } : {}) },
          providers: { up: { protocol, base_url: protocol === 'messages' ? 'https://upstream.example' : 'https://upstream.example/v1', api_key: 'u' } },
          models: { m: { provider: 'up', model: 'x' } },
        },
        'test',
      );
    const exposed = memoryClaimsNotice(config('memory', 2, 'responses'));
    expect(exposed?.level).toBe('warn');
    expect(exposed?.text).toMatch(/memory .*in this process only: a restart forgets them.*forwarded to an OpenAI Responses upstream.*another key's OpenAI response.*file or redis/);
    expect(memoryClaimsNotice(config('memory', 1, 'responses'))).toEqual({ level: 'info', text: exposed!.text });
    expect(memoryClaimsNotice(config('memory', 2, 'messages'))?.level).toBe('info');
    expect(memoryClaimsNotice(config('file', 2, 'responses'))).toBeUndefined();
  });
});
