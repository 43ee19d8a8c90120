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
