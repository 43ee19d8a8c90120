// Circuits shared through the state store's channel: two DeploymentHealth instances on one store stand
// for two processes (the memory backend delivers in-process; the file and redis channels are exercised
// by test/e2e/shared-state-processes.test.ts with real processes).
import { describe, expect, it } from 'vitest';
import { shareCircuits } from '../../../src/router/circuit-sync.js';
import { DeploymentHealth, type CircuitState } from '../../../src/router/deployment-health.js';
import { MemoryStateStore } from '../../../src/state/memory-store.js';

const policy = { failures: 2, windowMs: 10_000, cooldownMs: 5_000, maxCooldownMs: 60_000 };
const tick = () => new Promise((r) => setTimeout(r, 5));

describe('DeploymentHealth.applyRemote', () => {
  it('opens for the remaining time it is told, keeps the longer of two opens, and closes; never reports it as its own', () => {
    const h = new DeploymentHealth();
    const local: unknown[] = [];
    const changes: CircuitState[] = [];
    h.onLocalTransition = (c) => local.push(c);
    h.onStateChange = (_d, s) => changes.push(s);
    h.applyRemote({ deployment: 'p/m', state: 'open', openMs: 1000, trips: 1 }, 0);
    expect(h.available('p/m', 999)).toBe(false);
    h.applyRemote({ deployment: 'p/m', state: 'open', openMs: 100, trips: 1 }, 10);
    expect(h.msUntilProbe('p/m', 10)).toBe(990);
    expect(h.available('p/m', 1000)).toBe(true);
    h.applyRemote({ deployment: 'p/m', state: 'closed' }, 1001);
    expect(h.state('p/m', 1002)).toBe('closed');
    expect(changes).toEqual(['open', 'half-open', 'closed']);
    expect(local).toEqual([]);
  });

  it('a remote trip count carries on: the next local trip after it doubles the cooldown', () => {
    const h = new DeploymentHealth();
    h.applyRemote({ deployment: 'd', state: 'open', openMs: 5000, trips: 2 }, 0);
    expect(h.available('d', 5000)).toBe(true); // half-open
    h.begin('d');
    h.failure('d', policy, 5000); // the half-open probe fails: trip 3
    h.end('d');
    expect(h.msUntilProbe('d', 5000)).toBe(20_000);
  });
});

describe('shareCircuits', () => {
  it('a circuit opened in one process is open in the other; a close travels too; malformed messages are ignored', async () => {
    const store = new MemoryStateStore();
    const a = new DeploymentHealth();
    const b = new DeploymentHealth();
    const stopA = shareCircuits(a, store, (err) => { throw err; });
    const stopB = shareCircuits(b, store, (err) => { throw err; });
    a.failure('up/x', policy);
    a.failure('up/x', policy);
    await tick();
    expect(b.state('up/x')).toBe('open');
    expect(b.msUntilProbe('up/x')).toBeGreaterThan(4000);
    await store.publish('circuits', 'not json');
    await store.publish('circuits', JSON.stringify({ from: 'z', change: { deployment: 'up/x', state: 'sideways' } }));
    await tick();
    expect(b.state('up/x')).toBe('open');
    // B's probe succeeds (after its cooldown): A closes too.
    expect(b.available('up/x', Date.now() + 10_000)).toBe(true);
    b.begin('up/x');
    b.success('up/x');
    b.end('up/x');
    await tick();
    expect(b.state('up/x')).toBe('closed');
    expect(a.state('up/x')).toBe('closed');
    stopA();
    stopB();
    a.failure('up/y', policy);
    a.failure('up/y', policy);
    await tick();
    expect(b.state('up/y')).toBe('closed');
  });
});
