import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/load-config.js';
import { DeploymentHealth } from '../../../src/router/deployment-health.js';
import { ModelTable } from '../../../src/router/model-table.js';

const config = resolveConfig(
  {
    auth: { open: true },
    providers: {
      a: { protocol: 'messages', base_url: 'http://127.0.0.1:1' },
      b: { protocol: 'responses', base_url: 'http://127.0.0.1:2/v1' },
      c: { protocol: 'chat', base_url: 'http://127.0.0.1:3/v1' },
    },
    models: {
      exact: { provider: 'a', model: 'upstream-exact' },
      'claude-*': { provider: 'a' },
      multi: { targets: [{ provider: 'a', model: 'm1' }, { provider: 'b', model: 'm2' }, { provider: 'c', model: 'm3' }] },
      weighted: { strategy: 'weighted', targets: [{ provider: 'a', model: 'w1', weight: 1 }, { provider: 'b', model: 'w2', weight: 3 }] },
      least: { strategy: 'least-inflight', targets: [{ provider: 'a', model: 'l1' }, { provider: 'b', model: 'l2' }] },
    },
  },
  'test',
);

describe('ModelTable', () => {
  it('resolves exact aliases before wildcards and passes wildcard names through', () => {
    const table = new ModelTable(config, new DeploymentHealth());
    expect(table.resolve('exact')!.targets[0]!.model).toBe('upstream-exact');
    const wild = table.resolve('claude-opus-4-1')!;
    expect(wild.label).toBe('claude-*');
    expect(wild.targets[0]!.model).toBe('claude-opus-4-1');
    expect(table.resolve('nope')).toBeUndefined();
    expect(table.aliases).toEqual(['exact', 'multi', 'weighted', 'least']);
  });

  it('keeps fallback order and moves cooling deployments last', () => {
    const health = new DeploymentHealth();
    const table = new ModelTable(config, health);
    expect(table.resolve('multi')!.targets.map((t) => t.model)).toEqual(['m1', 'm2', 'm3']);
    const policy = { failures: 2, windowMs: 10_000, cooldownMs: 60_000, maxCooldownMs: 120_000 };
    health.failure('a/m1', policy);
    health.failure('a/m1', policy);
    expect(health.state('a/m1')).toBe('open');
    expect(table.resolve('multi')!.targets.map((t) => t.model)).toEqual(['m2', 'm3', 'm1']);
  });

  it('weighted strategy follows the weights', () => {
    let r = 0;
    const seq = [0.1, 0.9];
    const table = new ModelTable(config, new DeploymentHealth(), () => seq[r++ % 2]!);
    // 0.1*4 = 0.4 < 1 → w1 first; then 0.9*3 → w2
    expect(table.resolve('weighted')!.targets.map((t) => t.model)).toEqual(['w1', 'w2']);
    const counts = { w1: 0, w2: 0 };
    const t2 = new ModelTable(config, new DeploymentHealth());
    for (let i = 0; i < 4000; i++) counts[t2.resolve('weighted')!.targets[0]!.model as 'w1' | 'w2']++;
    expect(counts.w2 / 4000).toBeGreaterThan(0.68);
    expect(counts.w2 / 4000).toBeLessThan(0.82);
  });

  it('least-inflight prefers the idle deployment', () => {
    const health = new DeploymentHealth();
    const table = new ModelTable(config, health);
    health.begin('a/l1');
    expect(table.resolve('least')!.targets[0]!.model).toBe('l2');
    health.end('a/l1');
    health.begin('b/l2');
    expect(table.resolve('least')!.targets[0]!.model).toBe('l1');
  });
});

describe('DeploymentHealth', () => {
  it('opens after N failures in the window, goes half-open after the cooldown, doubles it on a failed probe', () => {
    const h = new DeploymentHealth();
    const states: string[] = [];
    h.onStateChange = (_d, s) => states.push(s);
    const policy = { failures: 3, windowMs: 1000, cooldownMs: 100, maxCooldownMs: 1000 };
    h.failure('d', policy, 0);
    h.failure('d', policy, 2000); // the first one left the window
    h.failure('d', policy, 2100);
    expect(h.state('d', 2100)).toBe('closed');
    h.failure('d', policy, 2200);
    expect(h.state('d', 2200)).toBe('open');
    expect(h.available('d', 2250)).toBe(false);
    expect(h.state('d', 2300)).toBe('half-open');
    h.begin('d');
    expect(h.available('d', 2300)).toBe(false); // one probe at a time
    h.failure('d', policy, 2310);
    expect(h.state('d', 2400)).toBe('open'); // cooldown doubled to 200
    expect(h.state('d', 2510)).toBe('half-open');
    h.success('d');
    expect(h.state('d', 2520)).toBe('closed');
    expect(states).toEqual(['open', 'half-open', 'open', 'half-open', 'closed']);
  });
});
