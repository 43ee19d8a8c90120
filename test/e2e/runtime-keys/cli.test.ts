// `switchyard keys …` and `switchyard teams …` (the real entry, as a child process) against a running
// gateway process on the file backend: what each prints (table, JSON, the secret once), what the
// gateway then does with the key, and the mistakes a script makes (no admin key, a model key, bad
// flags, a refused value) as one line and a non-zero exit.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayProcess, type GatewayProcess } from '../../support/gateway-process.js';
import { startScriptedUpstream, type Reply, type ScriptedUpstream } from '../../support/scripted-upstream/index.js';

const REPO = join(import.meta.dirname, '../../..');
const ADMIN = 'admin-secret-cli-1';
const OK: Reply = { kind: 'reply', blocks: [{ type: 'text', text: 'Hello.' }], usage: { input: 12, output: 9 } };

let upstream: ScriptedUpstream;
let gw: GatewayProcess;
let dir: string;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], env: Record<string, string> = { SWITCHYARD_ADMIN_KEY: ADMIN, SWITCHYARD_URL: gw.url }): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(REPO, 'src/main.ts'), ...args], {
      cwd: REPO,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

async function ask(key: string): Promise<number> {
  const res = await fetch(gw.url + '/v1/responses', {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'via-responses', input: 'hi', store: false }),
    signal: AbortSignal.timeout(10_000),
  });
  await res.arrayBuffer();
  return res.status;
}

beforeAll(async () => {
  upstream = await startScriptedUpstream({ defaultReply: () => OK });
  dir = mkdtempSync(join(tmpdir(), 'switchyard-rk-cli-'));
  gw = await startGatewayProcess({
    log: { level: 'info' },
    state: { backend: 'file', path: dir },
    auth: { keys: [{ name: 'model-key', key: 'model-key-cli-2' }], admin_keys: [{ name: 'ops', key: ADMIN }] },
    providers: { up: { protocol: 'responses', base_url: upstream.url + '/v1', api_key: 'upstream-key', retry: { attempts: 1 } } },
    models: { 'via-responses': { provider: 'up', model: 'gpt-upstream-1' } },
  });
}, 60_000);

afterAll(async () => {
  await gw?.stop();
  await upstream?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('switchyard keys and teams', () => {
  it('teams create, keys create (the secret once), list as a table and as JSON, show, update, rotate, revoke', async () => {
    const team = await cli(['teams', 'create', 'research', '--rpm', '100', '--json']);
    expect(team.code, team.stderr).toBe(0);
    expect(JSON.parse(team.stdout)).toMatchObject({ name: 'research', limits: { rpm: 100 } });

    const created = await cli(['keys', 'create', 'ci-job', '--team', 'research', '--models', 'via-responses', '--budget-usd', '5', '--budget-period', 'day', '--metadata', '{"owner":"ci"}']);
    expect(created.code, created.stderr).toBe(0);
    const secret = created.stdout.match(/^(sk-sy-rt-[A-Za-z0-9_-]{43})$/m)?.[1];
    expect(secret).toBeDefined();
    expect(created.stdout).toMatch(/NAME\s+PREFIX\s+TEAM/);
    expect(created.stdout).toMatch(/ci-job\s+sk-sy-rt-\S+\s+research\s+via-responses\s+-\s+\$5\/day/);
    expect(await ask(secret!)).toBe(200);

    const list = await cli(['keys', 'list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^ci-job\s/m);
    expect(list.stdout).not.toContain(secret!);
    const listJson = JSON.parse((await cli(['keys', 'list', '--json'])).stdout);
    expect(listJson.data.map((k: { name: string }) => k.name)).toEqual(['ci-job']);
    expect(JSON.parse((await cli(['keys', 'show', 'ci-job', '--json'])).stdout)).toMatchObject({ name: 'ci-job', team: 'research', metadata: { owner: 'ci' } });

    const disabled = await cli(['keys', 'update', 'ci-job', '--disable', '--json']);
    expect(JSON.parse(disabled.stdout).disabled).toBe(true);
    expect(await ask(secret!)).toBe(401);
    await cli(['keys', 'update', 'ci-job', '--enable', '--clear', 'budget']);
    const shown = JSON.parse((await cli(['keys', 'show', 'ci-job', '--json'])).stdout);
    expect(shown.disabled).toBe(false);
    expect(shown.budget).toBeUndefined();
    expect(await ask(secret!)).toBe(200);

    const rotated = await cli(['keys', 'rotate', 'ci-job', '--grace-s', '60', '--json']);
    expect(rotated.code).toBe(0);
    const next = JSON.parse(rotated.stdout);
    expect(next.key).toMatch(/^sk-sy-rt-/);
    expect(next.previous.prefix).toBe(shown.prefix);
    expect(await ask(next.key)).toBe(200);
    expect(await ask(secret!)).toBe(200); // the grace period

    const revoked = await cli(['keys', 'revoke', 'ci-job']);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toBe('revoked key ci-job\n');
    expect(await ask(next.key)).toBe(401);
    expect(await ask(secret!)).toBe(401);
    expect((await cli(['teams', 'delete', 'research'])).code).toBe(0);
    expect((await cli(['teams', 'list', '--json'])).stdout).toContain('"data": []');
    // The gateway logged the changes, never a secret.
    expect(gw.output()).toContain('"msg":"admin change"');
    expect(gw.output()).not.toContain(secret!);
    expect(gw.output()).not.toContain(next.key);
  }, 120_000);

  it('mistakes: one line each, a non-zero exit', async () => {
    const noKey = await cli(['keys', 'list'], { SWITCHYARD_URL: gw.url });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('SWITCHYARD_ADMIN_KEY');
    const modelKey = await cli(['keys', 'list'], { SWITCHYARD_ADMIN_KEY: 'model-key-cli-2', SWITCHYARD_URL: gw.url });
    expect(modelKey.code).toBe(1);
    expect(modelKey.stderr).toMatch(/^switchyard: 403 the admin API needs a key from auth.admin_keys/);
    const badValue = await cli(['keys', 'create', 'x', '--rpm', '-4']);
    expect(badValue.code).toBe(1);
    expect(badValue.stderr).toMatch(/^switchyard: 400 limits\.rpm: /);
    const unknownModel = await cli(['keys', 'create', 'x', '--models', 'nope']);
    expect(unknownModel.stderr).toMatch(/400 models\.0: "nope" is not a configured model/);
    const badFlag = await cli(['keys', 'create', 'x', '--rmp', '4']);
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toContain('unknown option --rmp');
    expect((await cli(['keys', 'frobnicate'])).code).toBe(2);
    expect((await cli(['keys', 'show'])).stderr).toContain('takes one NAME');
    const missing = await cli(['keys', 'show', 'nobody']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('404 no runtime key named "nobody"');
    const away = await cli(['keys', 'list', '--url', 'http://127.0.0.1:1']);
    expect(away.code).toBe(1);
    expect(away.stderr).toContain('cannot reach http://127.0.0.1:1');
    const help = await cli(['keys']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('switchyard keys create NAME');
  }, 120_000);
});
