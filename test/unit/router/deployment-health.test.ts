import { describe, expect, it } from 'vitest';
import { DeploymentHealth } from '../../../src/router/deployment-health.js';

const policy = { failures: 2, windowMs: 1000, cooldownMs: 100, maxCooldownMs: 350 };

describe('DeploymentHealth circuit breaker', () => {
  it('grows the cooldown on each failed probe up to the cap, and resets it after a success', () => {
    const h = new DeploymentHealth();
    h.failure('d', policy, 0);
    h.failure('d', policy, 10); // trip 1: open until 110
    expect(h.msUntilProbe('d', 10)).toBe(100);
    expect(h.available('d', 109)).toBe(false);
    expect(h.available('d', 110)).toBe(true);
    h.begin('d');
    h.failure('d', policy, 120); // failed probe, trip 2: 200
    h.end('d');
    expect(h.msUntilProbe('d', 120)).toBe(200);
    expect(h.available('d', 319)).toBe(false);
    expect(h.available('d', 320)).toBe(true);
    h.begin('d');
    h.failure('d', policy, 330); // trip 3: 400 capped to 350
    h.end('d');
    expect(h.msUntilProbe('d', 330)).toBe(350);
    expect(h.available('d', 680)).toBe(true);
    h.begin('d');
    h.success('d');
    h.end('d');
    expect(h.state('d', 690)).toBe('closed');
    // Back to the base cooldown on the next trip.
    h.failure('d', policy, 700);
    h.failure('d', policy, 701);
    expect(h.msUntilProbe('d', 701)).toBe(100);
  });

  it('admits a single half-open probe, and frees the slot when the probe ends without a verdict', () => {
    const h = new DeploymentHealth();
    h.failure('d', policy, 0);
    h.failure('d', policy, 0);
    expect(h.available('d', 100)).toBe(true);
    h.begin('d');
    expect(h.available('d', 101)).toBe(false);
    // e.g. the caller left, or the upstream refused the request itself (400): neither success nor failure
    h.end('d');
    expect(h.state('d', 102)).toBe('half-open');
    expect(h.available('d', 102)).toBe(true);
  });

  it('ignores failures and successes of requests that were in flight when the circuit opened', () => {
    const h = new DeploymentHealth();
    const states: string[] = [];
    h.onStateChange = (_d, s) => states.push(s);
    for (let i = 0; i < 5; i++) h.begin('d');
    h.failure('d', policy, 0);
    h.failure('d', policy, 1); // trip
    h.failure('d', policy, 2); // stragglers
    h.failure('d', policy, 3);
    h.failure('d', policy, 4);
    h.success('d');
    expect(h.state('d', 50)).toBe('open');
    expect(h.msUntilProbe('d', 1)).toBe(100); // not doubled by the stragglers
    expect(states).toEqual(['open']);
    for (let i = 0; i < 5; i++) h.end('d');
    expect(h.inFlight('d')).toBe(0);
  });

  it('counts failures only within the window', () => {
    const h = new DeploymentHealth();
    h.failure('d', policy, 0);
    h.failure('d', policy, 1000); // the first one is exactly one window old: out
    expect(h.state('d', 1000)).toBe('closed');
    h.failure('d', policy, 1500);
    expect(h.state('d', 1500)).toBe('open');
  });

  it('a success in the closed state forgets earlier failures', () => {
    const h = new DeploymentHealth();
    h.failure('d', policy, 0);
    h.success('d');
    h.failure('d', policy, 10);
    expect(h.state('d', 10)).toBe('closed');
  });
});

describe('DeploymentHealth table bound (wildcard routes: one entry per caller-chosen name)', () => {
  it('drops idle closed entries least recently used first, and never an entry in flight or an open circuit', () => {
    const h = new DeploymentHealth({ maxEntries: 10 });
    h.begin('busy'); // in flight throughout
    h.failure('tripped', policy);
    h.failure('tripped', policy); // open for 100 ms
    for (let i = 0; i < 5000; i++) {
      h.begin(`p/random-${i}`);
      h.end(`p/random-${i}`);
    }
    expect(h.size).toBeLessThanOrEqual(10);
    expect(h.inFlight('busy')).toBe(1);
    expect(h.state('tripped')).not.toBe('closed');
    // The most recently used survive.
    expect(h.inFlight('p/random-4999')).toBe(0);
    h.begin('p/random-4999');
    expect(h.inFlight('p/random-4999')).toBe(1);
    h.end('busy');
    h.end('p/random-4999');
  });

  it('expires entries idle for idleMs when a new one comes in', async () => {
    const h = new DeploymentHealth({ idleMs: 20 });
    for (let i = 0; i < 50; i++) {
      h.begin(`p/m-${i}`);
      h.end(`p/m-${i}`);
    }
    expect(h.size).toBe(50);
    await new Promise((r) => setTimeout(r, 30));
    h.begin('p/new');
    h.end('p/new');
    expect(h.size).toBeLessThanOrEqual(50 - 15);
    for (let i = 0; i < 5; i++) {
      h.begin(`p/later-${i}`);
      h.end(`p/later-${i}`);
    }
    expect(h.size).toBe(6);
  });
});

