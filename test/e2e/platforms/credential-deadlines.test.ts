// A credential source that does not answer (issue 32, R1): a stuck AWS credential_process, a Google
// metadata server that accepts the connection and never answers. Each request fails within its own
// total_ms (the attempt's timer is armed before the platform signs or fetches a token), the router falls
// back, another key's request is not held by the shared fetch, the concurrency lease and the in-flight
// entry come back, the fetch itself ends at its bound (the helper's whole process group killed) and the
// next request starts a new one; on SIGTERM the caller gets the retryable error, and the helper does not
// outlive the gateway. Real processes throughout: the SDK's own credential chain runs the script.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { devNull, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setAwsEnv, startBedrockHarness, type BedrockHarness } from '../../support/bedrock/gateway.js';
import { startGatewayProcess, waitForOutput } from '../../support/gateway-process.js';
import { startCredentialBlackhole, overrideEnv, type CredentialBlackhole } from '../../support/credential-blackhole.js';
import { startHarness, type Harness } from '../../support/gateway-harness.js';

const MODEL = 'us.anthropic.claude-opus-4-1-20250805-v1:0';
const TOTAL_MS = 2000;
/** A request may end this much later than its total_ms (a loaded two-core machine). */
const SLACK_MS = 1500;
const ALICE = 'sk-sy-alice-credential-deadline-01';
const BOB = 'sk-sy-bob-credential-deadline-0002';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await sleep(50);
  }
  return check();
}

/** A credential_process that records its shell's and its child's pids, counts its runs, and never answers. */
function stuckHelper(dir: string): { configFile: string; pids: () => number[]; runs: () => number } {
  const script = join(dir, 'stuck-credentials.sh');
  writeFileSync(script, `#!/bin/sh\necho run >> "${dir}/runs"\nsleep 600 &\necho "$$ $!" >> "${dir}/pids"\nwait\n`);
  chmodSync(script, 0o755);
  const configFile = join(dir, 'config');
  writeFileSync(configFile, `[profile stuck]\ncredential_process = ${script}\n`);
  const lines = (f: string) => (existsSync(join(dir, f)) ? readFileSync(join(dir, f), 'utf8').trim().split('\n').filter(Boolean) : []);
  return { configFile, pids: () => lines('pids').flatMap((l) => l.split(' ').map(Number)), runs: () => lines('runs').length };
}

async function ask(url: string, key: string, model: string): Promise<{ status: number; ms: number; body: string }> {
  const t0 = Date.now();
  const res = await fetch(url + '/v1/messages', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model, max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] }),
  });
  const body = await res.text();
  return { status: res.status, ms: Date.now() - t0, body };
}

describe('a credential_process that never returns', () => {
  let h: BedrockHarness;
  let restoreEnv: () => void;
  let dir: string;
  let helper: ReturnType<typeof stuckHelper>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'switchyard-stuck-creds-'));
    helper = stuckHelper(dir);
    restoreEnv = setAwsEnv({ AWS_PROFILE: 'stuck' });
    process.env.AWS_CONFIG_FILE = helper.configFile;
    h = await startBedrockHarness({
      model: MODEL,
      // The cache's own bound is connect_ms (3 s), past total_ms: each waiter ends at its own deadline first.
      provider: { timeouts: { total_ms: TOTAL_MS, connect_ms: 3000 } },
      config: () => ({
        auth: {
          keys: [
            { name: 'alice', key: ALICE, limits: { concurrency: 1 } },
            { name: 'bob', key: BOB },
          ],
        },
        models: {
          'bedrock-only': { provider: 'up-messages', model: MODEL },
          claude: { targets: [{ provider: 'up-messages', model: MODEL }, { provider: 'anthropic-direct', model: 'claude-direct-1' }] },
        },
      }),
    });
  });
  afterAll(async () => {
    await h?.close();
    restoreEnv?.();
    for (const pid of helper?.pids() ?? []) if (alive(pid)) process.kill(pid, 'SIGKILL');
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('fails each request within its total_ms, holds no other key, frees the lease, kills the helper at the bound, then tries again', async () => {
    const first = ask(h.url, ALICE, 'bedrock-only');
    await sleep(500);
    // Bob's request joins the fetch alice's started; it ends at its own deadline, not at the fetch's.
    const second = ask(h.url, BOB, 'bedrock-only');
    const [a, b] = await Promise.all([first, second]);
    expect(a.status).toBe(504);
    expect(JSON.parse(a.body)).toMatchObject({ type: 'error', error: { type: 'timeout_error' } });
    expect(a.body).toMatch(/credentials were not ready within its total time limit/);
    expect(a.ms).toBeGreaterThanOrEqual(TOTAL_MS - 100);
    expect(a.ms).toBeLessThan(TOTAL_MS + SLACK_MS);
    expect(b.status).toBe(504);
    expect(b.ms).toBeLessThan(TOTAL_MS + SLACK_MS);
    expect(helper.runs()).toBe(1); // one fetch, shared
    expect(h.gateway.ctx.inFlight.size).toBe(0);
    expect(h.upstream.received).toHaveLength(0);

    // The fetch's own bound (3 s) ended it: the helper and its child are gone, killed as a group.
    const pids = helper.pids();
    expect(pids).toHaveLength(2);
    expect(await until(() => pids.every((p) => !alive(p)), 3000)).toBe(true);

    // Alice's one slot is free again (no 429), and this request starts a new fetch.
    const again = await ask(h.url, ALICE, 'bedrock-only');
    expect(again.status).toBe(504);
    expect(again.ms).toBeLessThan(TOTAL_MS + SLACK_MS);
    expect(helper.runs()).toBe(2);
  }, 30_000);

  it('falls back to the next target, and the circuit counts the failure', async () => {
    const health = h.gateway.ctx.health;
    const failed: string[] = [];
    const failure = health.failure.bind(health);
    health.failure = (deployment, policy, now) => (failed.push(deployment), failure(deployment, policy, now));
    h.firstParty.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'from the fallback' }] });
    const res = await ask(h.url, BOB, 'claude');
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ content: [{ type: 'text', text: 'from the fallback' }] });
    expect(res.ms).toBeLessThan(TOTAL_MS + SLACK_MS);
    expect(h.firstParty.received.at(-1)!.body.model).toBe('claude-direct-1');
    expect(failed).toEqual([`up-messages/${MODEL}`]);
  }, 30_000);

  it('count_tokens ends in the estimate within its bound instead of waiting on the helper', async () => {
    const t0 = Date.now();
    const res = await fetch(h.url + '/v1/messages/count_tokens', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': BOB, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'bedrock-only', messages: [{ role: 'user', content: 'Hi there' }] }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-switchyard-token-count')).toBe('estimate');
    expect(((await res.json()) as { input_tokens: number }).input_tokens).toBeGreaterThan(0);
    // firstByte_ms defaults above 30 s: the count route's own cap; the credential bound (3 s) comes first.
    expect(Date.now() - t0).toBeLessThan(3000 + SLACK_MS);
  }, 40_000);
});

describe('SIGTERM while a request waits on a stuck credential_process', () => {
  let dir: string;
  let helper: ReturnType<typeof stuckHelper>;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'switchyard-stuck-creds-term-'));
    helper = stuckHelper(dir);
  });
  afterAll(() => {
    for (const pid of helper?.pids() ?? []) if (alive(pid)) process.kill(pid, 'SIGKILL');
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the caller gets the retryable overloaded error, and the helper is gone with the gateway', async () => {
    const gw = await startGatewayProcess(
      {
        server: { shutdown_grace_ms: 500, drain_delay_ms: 0 },
        log: { level: 'info' },
        providers: {
          bedrock: { protocol: 'messages', platform: 'bedrock', region: 'us-east-1', base_url: 'http://127.0.0.1:1', retry: { attempts: 1 }, timeouts: { total_ms: 60_000, connect_ms: 10_000 } },
        },
        models: { claude: { provider: 'bedrock', model: MODEL } },
      },
      {
        env: {
          AWS_PROFILE: 'stuck',
          AWS_CONFIG_FILE: helper.configFile,
          AWS_SHARED_CREDENTIALS_FILE: devNull,
          AWS_EC2_METADATA_DISABLED: 'true',
          AWS_ACCESS_KEY_ID: '',
          AWS_SECRET_ACCESS_KEY: '',
        },
      },
    );
    try {
      const waiting = ask(gw.url, 'any', 'claude');
      expect(await until(() => helper.pids().length === 2, 10_000)).toBe(true);
      const t0 = Date.now();
      process.kill(gw.pid, 'SIGTERM');
      const res = await waiting;
      expect(res.status).toBe(529);
      expect(JSON.parse(res.body)).toMatchObject({ type: 'error', error: { type: 'overloaded_error' } });
      expect(Date.now() - t0).toBeLessThan(5000);
      await waitForOutput(gw, 'drain: grace over');
      expect(await gw.exited).toBe(0);
      const pids = helper.pids();
      expect(await until(() => pids.every((p) => !alive(p)), 2000)).toBe(true);
    } finally {
      await gw.stop(2000);
    }
  }, 40_000);
});

describe('a Google metadata server that accepts the connection and never answers', () => {
  let h: Harness;
  let blackhole: CredentialBlackhole;
  let restoreEnv: () => void;

  beforeAll(async () => {
    // It answers the detection ping (as the GKE metadata server does) and holds every token request.
    blackhole = await startCredentialBlackhole();
    restoreEnv = overrideEnv({
      GCE_METADATA_HOST: blackhole.at,
      CLOUDSDK_CONFIG: mkdtempSync(join(tmpdir(), 'no-gcloud-')),
      GOOGLE_APPLICATION_CREDENTIALS: undefined,
    });
    h = await startHarness({
      config: (base) => ({
        auth: { keys: [{ name: 'alice', key: ALICE, limits: { concurrency: 1 } }] },
        providers: {
          vertex: { protocol: 'messages', platform: 'vertex', project: 'proj-1', region: 'us-east5', base_url: 'http://127.0.0.1:1/v1', retry: { attempts: 1 }, timeouts: { total_ms: TOTAL_MS, connect_ms: 3000 } },
          direct: { protocol: 'messages', base_url: base, api_key: 'upstream-key-direct', retry: { attempts: 1 } },
        },
        models: {
          'vertex-only': { provider: 'vertex', model: 'claude-x@1' },
          claude: { targets: [{ provider: 'vertex', model: 'claude-x@1' }, { provider: 'direct', model: 'claude-direct-1' }] },
        },
      }),
      apiKey: ALICE,
    });
  });
  afterAll(async () => {
    await h?.close();
    await blackhole?.close();
    restoreEnv?.();
  });

  it('fails the request within total_ms, frees the lease, and the next request falls back', async () => {
    const a = await ask(h.url, ALICE, 'vertex-only');
    expect(a.status).toBe(504);
    expect(a.ms).toBeLessThan(TOTAL_MS + SLACK_MS);
    expect(blackhole.held.length).toBeGreaterThan(0); // it did ask the blackhole for a token
    expect(h.gateway.ctx.inFlight.size).toBe(0);
    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'fell back' }] });
    // Alice's slot is free (no 429); the stuck token fails this attempt, the next target answers.
    const b = await ask(h.url, ALICE, 'claude');
    expect(b.status).toBe(200);
    expect(JSON.parse(b.body)).toMatchObject({ content: [{ type: 'text', text: 'fell back' }] });
    expect(b.ms).toBeLessThan(TOTAL_MS + SLACK_MS);
  }, 30_000);
});
