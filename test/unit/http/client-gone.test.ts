// The caller-left switch the route throws: the router's attempt loop reads it as it read an
// AbortSignal (stop trying, stop waiting between retries), listeners run once, and a Generation's
// lanes see `clientGone.signal.aborted`.
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/load-config.js';
import { GatewayError } from '../../../src/errors.js';
import { ClientGone } from '../../../src/http/client-gone.js';
import { runAttempts } from '../../../src/router/attempts.js';
import { DeploymentHealth } from '../../../src/router/deployment-health.js';
import { ModelTable } from '../../../src/router/model-table.js';

describe('ClientGone', () => {
  it('is its own signal; abort flips `aborted` and runs each listener once', () => {
    const gone = new ClientGone();
    const calls: string[] = [];
    gone.signal.addEventListener('abort', () => calls.push('a'));
    gone.signal.addEventListener('abort', () => calls.push('b'));
    expect(gone.signal.aborted).toBe(false);
    gone.abort();
    gone.abort();
    expect(gone.signal.aborted).toBe(true);
    expect(calls).toEqual(['a', 'b']);
  });

  it('the attempt loop stops waiting for a retry as soon as the caller leaves', async () => {
    const retry = { attempts: 3, backoff_ms: 10_000, max_backoff_ms: 10_000, budget_ms: 60_000 };
    const config = resolveConfig(
      { auth: { open: true }, providers: { a: { protocol: 'messages', base_url: 'http://127.0.0.1:1', retry } }, models: { m: { provider: 'a', model: 'up' } } },
      'test',
    );
    const health = new DeploymentHealth();
    const targets = new ModelTable(config, health).resolve('m')!.targets;
    const gone = new ClientGone();
    let attempts = 0;
    const t0 = performance.now();
    const run = runAttempts(targets, health, {
      signal: gone.signal,
      committed: () => false,
      async runAttempt() {
        attempts++;
        setTimeout(() => gone.abort(), 20);
        throw new GatewayError('overloaded', 'busy', { upstreamStatus: 503 });
      },
    });
    await run.catch(() => undefined);
    expect(attempts).toBe(1);
    expect(performance.now() - t0).toBeLessThan(5000);
  });
});
