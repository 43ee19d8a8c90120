// The non-Docker install (docs/deploy.md, "Without Docker"): the package as `npm pack` makes it, installed
// into an empty folder and run with `npx switchyard`, offline. The tarball is packed from a staging copy
// holding what `prepack` (npm run build) leaves in the repository — package.json, dist/ (tsc and the
// status page's files), docs/, examples/ — so the test writes nothing into the checkout; `npm pack` then
// applies package.json's `files` itself. The registry may be unreachable here, and the package's
// dependencies are given as ranges (a lockfile is never packed), so the install is `npm ci --offline` from a
// lockfile written from the repository's package-lock.json (its production entries, and the tarball as a
// `file:` dependency): every dependency comes from the npm cache `npm ci` in the repository filled, at the
// version the repository is tested with.
import Anthropic from '@anthropic-ai/sdk';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/gateway-process.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../support/scripted-upstream/index.js';

const run = promisify(execFile);
const REPO = join(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  license: string;
  bin: Record<string, string>;
  files: string[];
  engines: Record<string, string>;
  dependencies: Record<string, string>;
};
const npmEnv = { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };

let root: string;
let tarball: string;
let installed: string;
let upstream: ScriptedUpstream;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'switchyard-npm-'));
  upstream = await startScriptedUpstream({ defaultReply: () => ({ kind: 'reply', blocks: [{ type: 'text', text: 'hello from the package' }], usage: { input: 2, output: 2 } }) });
  // What `npm run build` (prepack) leaves in the repository, in a staging copy.
  const stage = join(root, 'stage');
  mkdirSync(stage);
  for (const f of ['package.json', 'README.md']) cpSync(join(REPO, f), join(stage, f));
  for (const d of ['docs', 'examples']) cpSync(join(REPO, d), join(stage, d), { recursive: true });
  await run(process.execPath, [join(REPO, 'node_modules/typescript/bin/tsc'), '-p', join(REPO, 'tsconfig.build.json'), '--outDir', join(stage, 'dist')], { cwd: REPO, timeout: 240_000 });
  await run(process.execPath, [join(REPO, 'scripts/copy-status-page.mjs'), join(stage, 'dist')], { cwd: REPO, timeout: 30_000 });
  const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', root], { cwd: stage, timeout: 120_000, env: npmEnv });
  const [info] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
  tarball = join(root, info!.filename);
  const files = info!.files.map((f) => f.path);
  expect(files).toEqual(expect.arrayContaining(['package.json', 'dist/main.js', 'dist/status/page/status.html', 'dist/status/page/status.js', 'dist/status/page/keys-console.js', 'dist/status/page/status.css', 'examples/container/switchyard.yaml']));
  expect(files.filter((f) => /^(src|test|bench|node_modules)\//.test(f) || (f.endsWith('.ts') && !f.endsWith('.d.ts')))).toEqual([]);

  // An empty folder, the tarball, and a lockfile from the repository's production entries.
  installed = join(root, 'install');
  mkdirSync(installed);
  const file = `file:${tarball}`;
  const lock = JSON.parse(readFileSync(join(REPO, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean; link?: boolean }> };
  const packages: Record<string, unknown> = {
    '': { name: 'switchyard-install', dependencies: { [pkg.name]: file } },
    [`node_modules/${pkg.name}`]: {
      version: pkg.version,
      resolved: file,
      integrity: 'sha512-' + createHash('sha512').update(readFileSync(tarball)).digest('base64'),
      license: pkg.license,
      dependencies: pkg.dependencies,
      bin: pkg.bin,
      engines: pkg.engines,
    },
  };
  for (const [path, entry] of Object.entries(lock.packages)) if (path !== '' && !entry.dev && !entry.link) packages[path] = entry;
  writeFileSync(join(installed, 'package.json'), JSON.stringify({ name: 'switchyard-install', private: true, dependencies: { [pkg.name]: file } }));
  writeFileSync(join(installed, 'package-lock.json'), JSON.stringify({ name: 'switchyard-install', lockfileVersion: 3, requires: true, packages }));
  await run('npm', ['ci', '--offline', '--no-audit', '--no-fund'], { cwd: installed, timeout: 300_000, env: npmEnv }).catch((err: { stderr?: string }) => {
    throw new Error(`npm ci --offline failed (is the npm cache filled? run npm ci in the repository first): ${String(err.stderr ?? err).slice(0, 800)}`);
  });
}, 600_000);

afterAll(async () => {
  await upstream?.close();
  if (root) rmSync(root, { recursive: true, force: true });
}, 180_000);

describe('npm pack → npm install → npx switchyard', () => {
  it('installs the production dependencies only, links the switchyard command, and serves from the package\'s example config', async () => {
    const modules = readdirSync(join(installed, 'node_modules'));
    for (const dev of ['typescript', 'tsx', 'vitest', 'openai', 'kubernetes-models']) expect(modules, dev).not.toContain(dev);
    for (const dep of ['switchyard', 'fastify', 'pino', 'lmdb']) expect(modules, dep).toContain(dep);
    expect(readdirSync(join(installed, 'node_modules/.bin'))).toContain('switchyard');

    const port = await freePort();
    const keys = { SWITCHYARD_API_KEY: 'caller-key-0123456789', SWITCHYARD_ADMIN_KEY: 'admin-key-0123456789', ANTHROPIC_API_KEY: 'upstream-key' };
    // Its own process group, so the test stops npx and the gateway under it by the group's id.
    const child: ChildProcess = spawn('npx', ['--offline', 'switchyard', '--config', 'node_modules/switchyard/examples/container/switchyard.yaml'], {
      cwd: installed,
      env: { ...npmEnv, ...keys, ANTHROPIC_BASE_URL: upstream.url, SWITCHYARD_PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const url = `http://127.0.0.1:${port}`;
    try {
      const until = Date.now() + 60_000;
      let ready = false;
      while (!ready && Date.now() < until && child.exitCode === null) {
        ready = await fetch(url + '/readyz').then((r) => r.ok, () => false);
        if (!ready) await new Promise((r) => setTimeout(r, 200));
      }
      expect(ready, out.slice(-2000)).toBe(true);
      const anthropic = new Anthropic({ baseURL: url, apiKey: keys.SWITCHYARD_API_KEY, maxRetries: 0 });
      const m = await anthropic.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] });
      expect(m.content[0]).toMatchObject({ type: 'text', text: 'hello from the package' });
      expect(upstream.received.at(-1)?.headers['x-api-key']).toBe(keys.ANTHROPIC_API_KEY);
      const page = await fetch(url + '/status');
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('status.js');
      expect((await fetch(url + '/status/status.css')).status).toBe(200);
      for (let i = 0; i < 50 && !out.includes('switchyard listening'); i++) await new Promise((r) => setTimeout(r, 100));
      expect(out).toContain(`switchyard listening on http://127.0.0.1:${port}`);
    } finally {
      // SIGTERM to the group: npx, npm exec and the gateway; the gateway drains (drain_delay_ms 5 s by default).
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
      for (let i = 0; i < 200 && !out.includes('drain: closed'); i++) await new Promise((r) => setTimeout(r, 100));
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // the group is gone already
      }
    }
    expect(out).toContain('drain: closed');
  }, 120_000);
});
