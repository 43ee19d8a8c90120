// What the image runs, without Docker: a production install — dist/ compiled by `tsc -p
// tsconfig.build.json` and `npm ci --omit=dev` into a fresh directory (no dev dependency: no TypeScript,
// no tsx at run time) — started with plain `node dist/main.js` as a non-root user (nobody, 65534) with
// the whole tree read-only. It serves both doors through the official SDKs, keeps its state in the state
// path (the file backend, so the native lmdb package is loaded too), writes nothing anywhere else in the
// tree, and exits 0 on SIGTERM after its drain.
// The install reads only the local npm cache (`--offline`), which `npm ci` in the repository filled.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/gateway-process.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../support/scripted-upstream/index.js';

const run = promisify(execFile);
const REPO = join(import.meta.dirname, '../..');
const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;

let root: string;
let app: string;
let upstream: ScriptedUpstream;

/** Every file of a tree with its size and mtime, to show nothing in it changed. */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else {
        const s = statSync(p);
        out.set(p, `${s.size}:${s.mtimeMs}`);
      }
    }
    out.set(d, String(statSync(d).mtimeMs));
  };
  walk(dir);
  return out;
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'switchyard-prod-'));
  chmodSync(root, 0o755);
  app = join(root, 'app');
  mkdirSync(app);
  copyFileSync(join(REPO, 'package.json'), join(app, 'package.json'));
  copyFileSync(join(REPO, 'package-lock.json'), join(app, 'package-lock.json'));
  upstream = await startScriptedUpstream();
  // The image's build stage: compile (dev dependencies are only needed here, from the repository's).
  await run(process.execPath, [join(REPO, 'node_modules/typescript/bin/tsc'), '-p', join(REPO, 'tsconfig.build.json'), '--outDir', join(app, 'dist')], {
    cwd: REPO,
    timeout: 180_000,
  });
  // The image's prod-deps stage.
  await run('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund', '--offline'], { cwd: app, timeout: 240_000, env: { ...process.env, npm_config_update_notifier: 'false' } }).catch((err: { stderr?: string }) => {
    throw new Error(`npm ci --omit=dev --offline failed (is the npm cache filled? run npm ci in the repository first): ${String(err.stderr ?? err).slice(0, 500)}`);
  });
}, 480_000);

afterAll(async () => {
  await upstream?.close();
  if (root) {
    // Give write permission back so the temp tree can be removed.
    await run('chmod', ['-R', 'u+w', root]).catch(() => undefined);
    rmSync(root, { recursive: true, force: true });
  }
}, 60_000);

describe('production install (what the Dockerfile builds)', () => {
  it('has no dev dependency and no TypeScript source', () => {
    const modules = readdirSync(join(app, 'node_modules'));
    for (const dev of ['typescript', 'tsx', 'vitest', 'autocannon', 'openai', 'kubernetes-models']) expect(modules, dev).not.toContain(dev);
    for (const dep of ['fastify', 'pino', 'prom-client', 'undici', 'ioredis', 'lmdb', 'yaml', '@sinclair']) expect(modules, dep).toContain(dep);
    const ts = [...snapshot(join(app, 'dist')).keys()].filter((p) => p.endsWith('.ts') && !p.endsWith('.d.ts'));
    expect(ts).toEqual([]);
  });

  it('runs as a non-root user from a read-only tree, serves both doors, writes only to its state path, drains on SIGTERM', async () => {
    upstream.setDefault((req) => ({ kind: 'reply', blocks: [{ type: 'text', text: `hello from ${req.protocol}` }], usage: { input: 5, output: 3 } }));
    const etc = join(root, 'etc');
    const state = join(root, 'state');
    mkdirSync(etc);
    mkdirSync(state);
    const port = await freePort();
    const config = {
      server: { host: '127.0.0.1', port, drain_delay_ms: 200, shutdown_grace_ms: 2000 },
      log: { level: 'info' },
      auth: { keys: [{ name: 'caller', key: 'caller-key' }] },
      state: { backend: 'file', path: join(state, 'db') },
      providers: {
        'up-messages': { protocol: 'messages', base_url: upstream.url, api_key: 'k-m' },
        'up-responses': { protocol: 'responses', base_url: upstream.url + '/v1', api_key: 'k-r' },
      },
      models: { claude: { provider: 'up-messages', model: 'claude-up' }, gpt: { provider: 'up-responses', model: 'gpt-up' } },
    };
    writeFileSync(join(etc, 'switchyard.yaml'), JSON.stringify(config));
    // Read-only for everyone: the app tree and the config. Only the state path belongs to the user.
    await run('chmod', ['-R', 'a-w,a+rX', app, etc]);
    if (asRoot) chownSync(state, NOBODY, NOBODY);
    const before = snapshot(app);

    const child: ChildProcess = spawn(process.execPath, ['dist/main.js', '--config', join(etc, 'switchyard.yaml')], {
      cwd: app,
      // As the image runs it: the process's own user, no HOME it could write to.
      env: { PATH: process.env.PATH, HOME: '/nonexistent', TMPDIR: '/tmp' },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(asRoot ? { uid: NOBODY, gid: NOBODY } : {}),
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const url = `http://127.0.0.1:${port}`;
      const until = Date.now() + 30_000;
      let ready = false;
      while (!ready && Date.now() < until && child.exitCode === null) {
        ready = await fetch(url + '/readyz').then((r) => r.ok, () => false);
        if (!ready) await new Promise((r) => setTimeout(r, 100));
      }
      expect(ready, out.slice(-2000)).toBe(true);
      expect((await fetch(url + '/livez')).status).toBe(200);

      const anthropic = new Anthropic({ baseURL: url, apiKey: 'caller-key', maxRetries: 0 });
      const message = await anthropic.messages.create({ model: 'claude', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] });
      expect(message.content[0]).toMatchObject({ type: 'text', text: 'hello from messages' });
      const openai = new OpenAI({ baseURL: url + '/v1', apiKey: 'caller-key', maxRetries: 0 });
      const first = await openai.responses.create({ model: 'gpt', input: 'hi' });
      expect(first.output_text).toBe('hello from responses');
      // A continuation through the state path (the file backend on lmdb, a native package).
      const second = await openai.responses.create({ model: 'claude', input: 'again', previous_response_id: first.id });
      expect(second.output_text).toBe('hello from messages');

      const ps = await run('ps', ['-o', 'user=,args=', '-p', String(child.pid)]);
      if (asRoot) expect(ps.stdout).toMatch(/^nobody\s/);
      expect(ps.stdout).not.toMatch(/tsx|typescript/);

      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(out).toContain('drain: closed');
      expect(out).not.toMatch(/EACCES|EROFS|"level":(50|60)/);
      // Nothing in the tree changed; the state path has the store.
      expect(snapshot(app)).toEqual(before);
      expect(existsSync(join(state, 'db'))).toBe(true);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 60_000);
});
