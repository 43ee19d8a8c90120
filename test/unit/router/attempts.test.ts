// The attempt loop as the router's own decision, with runAttempt scripted: which target next, which
// failures are retried, when the loop stops (committed, caller gone, credentials refused, budget), and
// what the deployments' health learns from it.
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/load-config.js';
import { GatewayError, type GatewayErrorKind } from '../../../src/errors.js';
import { runAttempts, retryable, type AttemptFailure, type AttemptHooks, type AttemptStart } from '../../../src/router/attempts.js';
import { DeploymentHealth } from '../../../src/router/deployment-health.js';
import { ModelTable, type RouteTarget } from '../../../src/router/model-table.js';

const retry = { attempts: 3, backoff_ms: 1, max_backoff_ms: 2, budget_ms: 5000 };
const config = resolveConfig(
  {
    auth: { open: true },
    providers: {
      a: { protocol: 'messages', base_url: 'http://127.0.0.1:1', retry, cooldown: { failures: 3, window_ms: 60_000, cooldown_ms: 60_000 } },
      b: { protocol: 'responses', base_url: 'http://127.0.0.1:2/v1', retry: { attempts: 1 } },
    },
    models: {
      two: { targets: [{ provider: 'a', model: 'first' }, { provider: 'b', model: 'second' }] },
    },
  },
  'test',
);

type Script = (target: RouteTarget, n: number) => GatewayErrorKind | undefined | GatewayError;

function setup(script: Script, opts: { committedAfterFailure?: boolean } = {}) {
  const health = new DeploymentHealth();
  const table = new ModelTable(config, health);
  const targets = table.resolve('two')!.targets;
  const starts: AttemptStart[] = [];
  const ends: string[] = [];
  /** The router's story: `model#attempt kind → next (why)` per failed attempt, `model#attempt skipped`. */
  const story: string[] = [];
  const failures: AttemptFailure[] = [];
  const abort = new AbortController();
  let committed = false;
  let n = 0;
  const hooks: AttemptHooks = {
    signal: abort.signal,
    committed: () => committed,
    onAttemptStart: (s) => starts.push(s),
    onAttemptEnd: (t, outcome) => ends.push(`${t.model}:${outcome}`),
    onAttemptFailed: (f) => {
      failures.push(f);
      story.push(`${f.target.model}#${f.attempt} ${f.error.kind} → ${f.next} (${f.why})`);
    },
    onDeploymentSkipped: (t, attempt) => story.push(`${t.model}#${attempt} skipped`),
    async runAttempt(target) {
      const out = script(target, ++n);
      if (out instanceof GatewayError) {
        if (opts.committedAfterFailure) committed = true;
        throw out;
      }
      return out;
    },
  };
  return { health, targets, starts, ends, story, failures, hooks, abort, run: () => runAttempts(targets, health, hooks) };
}

const err = (kind: GatewayErrorKind, status?: number) => new GatewayError(kind, kind, { upstreamStatus: status });

describe('runAttempts', () => {
  it('retries a retryable failure on the same deployment, then succeeds', async () => {
    const t = setup((_t, n) => (n < 3 ? err('overloaded', 503) : undefined));
    await t.run();
    expect(t.starts.map((s) => [s.target.model, s.attempt, s.fallback])).toEqual([
      ['first', 1, false],
      ['first', 2, false],
      ['first', 3, false],
    ]);
    expect(t.ends).toEqual(['first:overloaded', 'first:overloaded', 'first:success']);
  });

  it('falls back to the next deployment when the retries are spent, and marks it a fallback', async () => {
    const t = setup((target) => (target.model === 'first' ? err('api_error', 500) : undefined));
    await t.run();
    expect(t.starts.map((s) => `${s.target.model}#${s.attempt}${s.fallback ? ' fallback' : ''}`)).toEqual(['first#1', 'first#2', 'first#3', 'second#1 fallback']);
  });

  it('does not retry what would fail the same way again', async () => {
    for (const e of [err('invalid_request', 400), err('context_overflow', 400), err('billing', 429)]) {
      const t = setup(() => e);
      await expect(t.run()).rejects.toBe(e);
      expect(t.starts).toHaveLength(1);
    }
  });

  it('a refused credential skips the deployment’s retries but still falls back', async () => {
    const t = setup((target) => (target.model === 'first' ? err('bad_gateway', 401) : undefined));
    await t.run();
    expect(t.starts.map((s) => s.target.model)).toEqual(['first', 'second']);
  });

  it('stops at the first failure once the caller got a byte', async () => {
    const e = err('overloaded', 503);
    const t = setup(() => e, { committedAfterFailure: true });
    await expect(t.run()).rejects.toBe(e);
    expect(t.starts).toHaveLength(1);
  });

  it('stops without an error when the caller has left', async () => {
    const t = setup(() => err('overloaded', 503));
    t.abort.abort();
    await t.run();
    expect(t.starts).toHaveLength(0);
  });

  it('a stream cut short after commit counts against the deployment without a retry', async () => {
    const t = setup(() => 'overloaded');
    const policy = t.targets[0]!.provider.cooldown;
    t.health.failure('a/first', policy);
    t.health.failure('a/first', policy);
    expect(t.health.state('a/first')).toBe('closed');
    await t.run();
    expect(t.starts).toHaveLength(1);
    // The third failure within the window trips the circuit.
    expect(t.health.state('a/first')).toBe('open');
  });

  it('a stream cut short by the caller leaving does not count against the deployment', async () => {
    const t = setup(() => {
      t.abort.abort();
      return 'overloaded';
    });
    const policy = t.targets[0]!.provider.cooldown;
    t.health.failure('a/first', policy);
    t.health.failure('a/first', policy);
    await t.run();
    expect(t.health.state('a/first')).toBe('closed');
  });

  it('skips an open circuit while a later deployment is available, and tries it anyway when none is', async () => {
    const t = setup(() => undefined);
    for (let i = 0; i < 3; i++) t.health.failure('a/first', t.targets[0]!.provider.cooldown);
    await t.run();
    expect(t.starts.map((s) => s.target.model)).toEqual(['second']);

    const only = setup(() => undefined);
    for (let i = 0; i < 3; i++) only.health.failure('a/first', only.targets[0]!.provider.cooldown);
    await runAttempts([only.targets[0]!], only.health, only.hooks);
    expect(only.starts.map((s) => s.target.model)).toEqual(['first']);
  });

  it('throws the last error when every attempt failed', async () => {
    const t = setup((target) => (target.model === 'first' ? err('overloaded', 503) : err('timeout', 504)));
    await expect(t.run()).rejects.toMatchObject({ kind: 'timeout' });
  });
});

describe('runAttempts: why the router moved on (the operator\'s log)', () => {
  it('a transient failure is a retry with its wait; spent retries a fallback; the last deployment gives up', async () => {
    const t = setup(() => err('overloaded', 503));
    await expect(t.run()).rejects.toMatchObject({ kind: 'overloaded' });
    expect(t.story).toEqual([
      'first#1 overloaded → retry (transient)',
      'first#2 overloaded → retry (transient)',
      'first#3 overloaded → fallback (retries_exhausted)',
      'second#1 overloaded → give_up (retries_exhausted)',
    ]);
    // The wait announced is the backoff drawn for that retry (1–2 ms here).
    for (const f of t.failures.filter((x) => x.next === 'retry')) expect(f.waitMs).toBeGreaterThanOrEqual(1);
    expect(t.failures.filter((x) => x.next !== 'retry').every((f) => f.waitMs === undefined)).toBe(true);
  });

  it('credentials refused: straight to the next deployment; a bad request: no further attempt', async () => {
    const refused = setup((target) => (target.model === 'first' ? err('bad_gateway', 401) : undefined));
    await refused.run();
    expect(refused.story).toEqual(['first#1 bad_gateway → fallback (credentials_refused)']);

    const bad = setup(() => err('invalid_request', 400));
    await expect(bad.run()).rejects.toMatchObject({ kind: 'invalid_request' });
    expect(bad.story).toEqual(['first#1 invalid_request → give_up (not_retryable)']);
  });

  it('a failure after the first byte gives up (stream_started); a retry that would overrun the budget falls back', async () => {
    const committed = setup(() => err('overloaded', 503), { committedAfterFailure: true });
    await expect(committed.run()).rejects.toBeInstanceOf(GatewayError);
    expect(committed.story).toEqual(['first#1 overloaded → give_up (stream_started)']);

    // The upstream asks for 10 s; the budget is 5 s: no retry, the next deployment.
    const slow = setup((target) => (target.model === 'first' ? new GatewayError('rate_limit', 'slow down', { upstreamStatus: 429, retryAfter: '10' }) : undefined));
    await slow.run();
    expect(slow.story).toEqual(['first#1 rate_limit → fallback (retry_budget_spent)']);
  });

  it('an open circuit with a later deployment available is a skip in the story', async () => {
    const t = setup(() => undefined);
    for (let i = 0; i < 3; i++) t.health.failure('a/first', t.targets[0]!.provider.cooldown);
    await t.run();
    expect(t.story).toEqual(['first#1 skipped']);
  });
});

describe('retryable', () => {
  it('follows the kind, and the upstream status for transient statuses whatever the body says', () => {
    expect(retryable(err('rate_limit', 429))).toBe(true);
    expect(retryable(err('invalid_request', 408))).toBe(true);
    expect(retryable(err('invalid_request', 400))).toBe(false);
    expect(retryable(err('context_overflow', 500))).toBe(false);
    expect(retryable(err('billing', 429))).toBe(false);
  });
});
