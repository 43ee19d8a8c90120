// What the image runs, without Docker (no engine on the project's machines): the Dockerfile's layout
// rebuilt by hand — dist/ as the build stage's `npm run build` makes it (tsc, then the status page's files
// into dist/status/page), `npm ci --omit=dev` into a fresh directory (no dev dependency: no TypeScript, no
// tsx at run time), package.json, and examples/container/switchyard.yaml at the image's config path — run
// with the Dockerfile's own ENV and CMD as a non-root user (nobody, 65534, when the test runs as root)
// with the whole tree read-only. The image as it starts (the baked-in config, keys from the environment)
// answers every route the gateway serves, the status page included, and its HEALTHCHECK passes; a config
// with the file backend keeps its state in the state path (the native lmdb package loaded) and writes
// nothing anywhere else; both exit 0 on SIGTERM after their drain.
// The install reads only the local npm cache (`--offline`), which `npm ci` in the repository filled.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pino from 'pino';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/load-config.js';
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

/** The Dockerfile's runtime stage: its ENV pairs, its HEALTHCHECK command and its CMD. */
function imageRuntime(): { env: Record<string, string>; healthcheck: string[]; cmd: string[] } {
  const text = readFileSync(join(REPO, 'Dockerfile'), 'utf8').replace(/\\\n\s*/g, ' ');
  const runtime = text.split(/^FROM /m).at(-1)!;
  const env: Record<string, string> = {};
  for (const line of runtime.split('\n').filter((l) => l.startsWith('ENV '))) {
    for (const m of line.slice(4).matchAll(/(\w+)=(\S+)/g)) env[m[1]!] = m[2]!;
  }
  const healthcheck = JSON.parse(/^HEALTHCHECK .*CMD (\[.*\])$/m.exec(runtime)![1]!) as string[];
  const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(runtime)![1]!) as string[];
  return { env, healthcheck, cmd };
}

/** Every route the app registers ("GET /v1/models/:id"), from fastify's own route tree (HEAD left out:
 * fastify adds one to every GET). */
async function everyRoute(configFile: string, env: Record<string, string>): Promise<string[]> {
  const built = buildApp(loadConfig({ file: configFile, env }), { logger: pino({ level: 'silent' }) });
  await built.app.ready();
  const tree = built.app.printRoutes({ commonPrefix: false });
  await built.app.close();
  const out: string[] = [];
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^([│├└─\s]*)(\S+) \(([A-Z, ]+)\)$/.exec(line);
    if (!m) continue;
    const depth = m[1]!.length / 4;
    stack.length = depth;
    const path = (stack.at(-1) ?? '') + (depth === 0 || m[2]!.startsWith('/') || m[2]!.startsWith('.') ? m[2]! : '/' + m[2]!);
    stack.push(path === '/' ? '' : path);
    for (const method of m[3]!.split(', ')) if (method !== 'HEAD') out.push(`${method} ${path}`);
  }
  return out.sort();
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'switchyard-prod-'));
  chmodSync(root, 0o755);
  app = join(root, 'app');
  mkdirSync(app);
  copyFileSync(join(REPO, 'package.json'), join(app, 'package.json'));
  copyFileSync(join(REPO, 'package-lock.json'), join(app, 'package-lock.json'));
  upstream = await startScriptedUpstream();
  // The image's build stage, `npm run build` (dev dependencies are only needed here, from the repository's):
  // compile, then copy the status page's files next to the compiled code.
  expect(JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).scripts.build).toBe('tsc -p tsconfig.build.json && node scripts/copy-status-page.mjs');
  await run(process.execPath, [join(REPO, 'node_modules/typescript/bin/tsc'), '-p', join(REPO, 'tsconfig.build.json'), '--outDir', join(app, 'dist')], {
    cwd: REPO,
    timeout: 240_000,
  });
  await run(process.execPath, [join(REPO, 'scripts/copy-status-page.mjs'), join(app, 'dist')], { cwd: REPO, timeout: 30_000 });
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
}, 180_000);

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

  it('the image as it starts (baked-in config, keys from the environment) answers every route, /status included, and its HEALTHCHECK passes', async () => {
    upstream.setDefault((req) => ({ kind: 'reply', blocks: [{ type: 'text', text: `hello from ${req.protocol}` }], usage: { input: 5, output: 3 } }));
    const image = imageRuntime();
    expect(image.cmd).toEqual(['dist/main.js']);
    // The image's /etc/switchyard/switchyard.yaml (COPY examples/container/switchyard.yaml), here under the test's root.
    const configPath = image.env.SWITCHYARD_CONFIG!;
    expect(configPath).toBe('/etc/switchyard/switchyard.yaml');
    const etc = join(root, 'image-etc');
    mkdirSync(etc, { recursive: true });
    copyFileSync(join(REPO, 'examples/container/switchyard.yaml'), join(etc, 'switchyard.yaml'));
    await run('chmod', ['-R', 'a-w,a+rX', app, etc]);
    const before = snapshot(app);
    const port = await freePort();
    const keys = { SWITCHYARD_API_KEY: 'caller-key-0123456789', SWITCHYARD_ADMIN_KEY: 'admin-key-0123456789', ANTHROPIC_API_KEY: 'upstream-key' };
    // The Dockerfile's ENV as it is, but the address: tests listen on loopback only (the image says 0.0.0.0).
    expect(image.env.SWITCHYARD_HOST).toBe('0.0.0.0');
    const env = { ...image.env, SWITCHYARD_HOST: '127.0.0.1', SWITCHYARD_PORT: String(port), SWITCHYARD_CONFIG: join(etc, 'switchyard.yaml'), ...keys, ANTHROPIC_BASE_URL: upstream.url };
    const routes = await everyRoute(join(etc, 'switchyard.yaml'), { ...keys, ANTHROPIC_BASE_URL: upstream.url });

    const child: ChildProcess = spawn(process.execPath, image.cmd, {
      cwd: app,
      env: { PATH: process.env.PATH, HOME: '/nonexistent', TMPDIR: '/tmp', ...env },
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
      // The listening line says where the address came from (the log is flushed every 250 ms).
      for (let i = 0; i < 50 && !out.includes('switchyard listening'); i++) await new Promise((r) => setTimeout(r, 100));
      expect(out).toContain(`switchyard listening on http://127.0.0.1:${port} (host from SWITCHYARD_HOST, port from SWITCHYARD_PORT)`);

      // The Dockerfile's HEALTHCHECK, with this node for the image's /nodejs/bin/node.
      const [node, ...args] = image.healthcheck;
      expect(node).toBe('/nodejs/bin/node');
      await run(process.execPath, args, { env: { PATH: process.env.PATH, SWITCHYARD_PORT: String(port) }, timeout: 10_000 });

      const caller = { 'x-api-key': keys.SWITCHYARD_API_KEY };
      const admin = { 'x-api-key': keys.SWITCHYARD_ADMIN_KEY };
      const anthropic = new Anthropic({ baseURL: url, apiKey: keys.SWITCHYARD_API_KEY, maxRetries: 0 });
      const openai = new OpenAI({ baseURL: url + '/v1', apiKey: keys.SWITCHYARD_API_KEY, maxRetries: 0 });
      const get = (path: string, headers: Record<string, string> = {}, method = 'GET') => fetch(url + path, { method, headers });
      const send = (method: string, path: string, body?: unknown) =>
        fetch(url + path, { method, headers: { ...admin, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });
      let stored = '';
      let runtimeKey = '';
      /** One request per route, with what the route must answer. */
      const calls: Record<string, () => Promise<void>> = {
        'GET /': async () => {
          // The root names every generation door (the routes requested below).
          const { endpoints } = (await (await get('/')).json()) as { endpoints: string[] };
          for (const door of ['POST /v1/messages', 'POST /v1/responses', 'POST /v1/chat/completions', 'POST /v1beta/models/{model}:generateContent']) expect(endpoints).toContain(door);
        },
        'GET /livez': async () => expect((await get('/livez')).status).toBe(200),
        'GET /healthz': async () => expect((await get('/healthz')).status).toBe(200),
        'GET /readyz': async () => expect(await (await get('/readyz')).json()).toMatchObject({ status: 'ready' }),
        'GET /metrics': async () => expect(await (await get('/metrics', admin)).text()).toContain('# TYPE switchyard_requests_total counter'),
        'POST /v1/messages': async () => {
          const m = await anthropic.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] });
          expect(m.content[0]).toMatchObject({ type: 'text', text: 'hello from messages' });
        },
        'POST /v1/messages/count_tokens': async () => {
          const c = await anthropic.messages.countTokens({ model: 'claude-sonnet-4-6', messages: [{ role: 'user', content: 'hi' }] });
          expect(c.input_tokens).toBeGreaterThan(0);
        },
        'POST /v1/responses': async () => {
          const r = await openai.responses.create({ model: 'claude-sonnet-4-6', input: 'hi' });
          expect(r.output_text).toBe('hello from messages');
          stored = r.id;
        },
        'POST /v1/responses/input_tokens': async () => {
          const res = await fetch(url + '/v1/responses/input_tokens', { method: 'POST', headers: { ...caller, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'claude-sonnet-4-6', input: 'hi' }) });
          expect(res.status).toBe(200);
          expect(((await res.json()) as { input_tokens: number }).input_tokens).toBeGreaterThan(0);
        },
        'GET /v1/responses/:id': async () => expect((await openai.responses.retrieve(stored)).id).toBe(stored),
        'GET /v1/responses/:id/input_items': async () => expect((await openai.responses.inputItems.list(stored)).data.length).toBeGreaterThan(0),
        'DELETE /v1/responses/:id': async () => {
          await openai.responses.delete(stored);
          expect((await get(`/v1/responses/${stored}`, caller)).status).toBe(404);
        },
        'POST /v1/chat/completions': async () => {
          const c = await openai.chat.completions.create({ model: 'claude-sonnet-4-6', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] });
          expect(c.choices[0]!.message.content).toBe('hello from messages');
        },
        'GET /v1/responses': async () => {
          // WebSocket mode is on by default: the upgrade is answered and a response.create streams the
          // Responses events over the socket; a plain GET is a 404 naming POST.
          const events = await new Promise<{ type: string; response?: { output_text?: string; output?: unknown } }[]>((resolve, reject) => {
            const seen: { type: string }[] = [];
            const ws = new WebSocket(url.replace('http', 'ws') + '/v1/responses', { headers: caller });
            const timer = setTimeout(() => (ws.terminate(), reject(new Error(`no response.completed: ${JSON.stringify(seen)}`))), 10_000);
            ws.on('open', () => ws.send(JSON.stringify({ type: 'response.create', model: 'claude-sonnet-4-6', input: 'hi' })));
            ws.on('message', (data) => {
              const event = JSON.parse(String(data)) as { type: string };
              seen.push(event);
              if (event.type === 'response.completed' || event.type === 'error') {
                clearTimeout(timer);
                ws.close();
                resolve(seen);
              }
            });
            ws.on('error', (err) => (clearTimeout(timer), reject(err)));
          });
          expect(events[0]!.type).toBe('response.created');
          expect(events.at(-1)!.type).toBe('response.completed');
          expect(JSON.stringify(events.at(-1)!.response!.output)).toContain('hello from messages');
          expect((await get('/v1/responses', caller)).status).toBe(404);
        },
        'POST /v1beta/models/:target': async () => {
          const res = await fetch(`${url}/v1beta/models/claude-sonnet-4-6:generateContent?key=${keys.SWITCHYARD_API_KEY}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
          });
          expect(res.status).toBe(200);
          expect(JSON.stringify(await res.json())).toContain('hello from messages');
        },
        'POST /v1/models/:target': async () => {
          const res = await fetch(`${url}/v1/models/claude-sonnet-4-6:countTokens?key=${keys.SWITCHYARD_API_KEY}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
          });
          expect(res.status).toBe(200);
          expect(((await res.json()) as { totalTokens: number }).totalTokens).toBeGreaterThan(0);
        },
        'GET /v1beta/models': async () => expect((await get(`/v1beta/models?key=${keys.SWITCHYARD_API_KEY}`)).status).toBe(200),
        'GET /v1beta/models/:model': async () => expect((await get(`/v1beta/models/claude-sonnet-4-6?key=${keys.SWITCHYARD_API_KEY}`)).status).toBe(200),
        'GET /v1/models': async () => expect((await get('/v1/models', caller)).status).toBe(200),
        'GET /v1/models/:id': async () => expect(await (await get('/v1/models/claude-sonnet-4-6', caller)).json()).toMatchObject({ id: 'claude-sonnet-4-6' }),
        'GET /v1/usage': async () => expect((await get('/v1/usage', caller)).status).toBe(200),
        'GET /admin/usage': async () => expect((await get('/admin/usage', admin)).status).toBe(200),
        // Runtime keys in the image (memory backend): a team and a key made, used, changed and removed, in order.
        'POST /admin/teams': async () => expect((await send('POST', '/admin/teams', { name: 'img-team' })).status).toBe(201),
        'GET /admin/teams': async () => expect(JSON.stringify(await (await get('/admin/teams', admin)).json())).toContain('img-team'),
        'GET /admin/teams/:name': async () => expect(await (await get('/admin/teams/img-team', admin)).json()).toMatchObject({ name: 'img-team' }),
        'PATCH /admin/teams/:name': async () => expect((await send('PATCH', '/admin/teams/img-team', { limits: { rpm: 100 } })).status).toBe(200),
        'POST /admin/keys': async () => {
          const res = await send('POST', '/admin/keys', { name: 'img-key', team: 'img-team' });
          expect(res.status).toBe(201);
          runtimeKey = ((await res.json()) as { key: string }).key;
          expect((await get('/v1/usage', { 'x-api-key': runtimeKey })).status).toBe(200);
        },
        'GET /admin/keys': async () => expect(JSON.stringify(await (await get('/admin/keys', admin)).json())).toContain('img-key'),
        'GET /admin/keys/:name': async () => expect(await (await get('/admin/keys/img-key', admin)).json()).toMatchObject({ name: 'img-key', team: 'img-team' }),
        'PATCH /admin/keys/:name': async () => expect((await send('PATCH', '/admin/keys/img-key', { metadata: { owner: 'image test' } })).status).toBe(200),
        'POST /admin/keys/:name/rotate': async () => {
          const res = await send('POST', '/admin/keys/img-key/rotate', {});
          expect(res.status).toBe(200);
          expect(((await res.json()) as { key: string }).key).not.toBe(runtimeKey);
        },
        'DELETE /admin/keys/:name': async () => expect((await send('DELETE', '/admin/keys/img-key')).status).toBe(204),
        'DELETE /admin/teams/:name': async () => expect((await send('DELETE', '/admin/teams/img-team')).status).toBe(204),
        'GET /admin/audit': async () => expect(JSON.stringify(await (await get('/admin/audit', admin)).json())).toContain('img-key'),
        'GET /status': async () => {
          const res = await get('/status');
          expect(res.status).toBe(200);
          expect(res.headers.get('content-type')).toMatch(/^text\/html/);
          expect(await res.text()).toContain('status.js');
        },
        'GET /status/status.js': async () => expect((await get('/status/status.js')).status).toBe(200),
        'GET /status/status.css': async () => expect((await get('/status/status.css')).status).toBe(200),
        'GET /status/keys-console.js': async () => {
          const res = await get('/status/keys-console.js');
          expect(res.status).toBe(200);
          expect(res.headers.get('content-type')).toMatch(/javascript/);
        },
        'GET /status.json': async () => {
          expect((await get('/status.json')).status).toBe(401);
          expect(await (await get('/status.json', admin)).json()).toHaveProperty('instance');
        },
      };
      // fastify prints a parameter shared by two routes as `:target|:id`: parameter names are not compared.
      const shape = (list: string[]) => list.map((r) => r.replace(/:[\w:|]+/g, ':param')).sort();
      expect(shape(routes), 'a route the gateway serves has no request here').toEqual(shape(Object.keys(calls)));
      for (const route of Object.keys(calls)) {
        try {
          await calls[route]!();
        } catch (err) {
          throw new Error(`${route}: ${String(err)}\n${out.slice(-1500)}`);
        }
      }
      // HEAD on every GET route answers like GET.
      for (const path of ['/', '/livez', '/healthz', '/readyz', '/metrics', '/status', '/status/status.js', '/status/keys-console.js', '/status/status.css']) {
        expect((await get(path, admin, 'HEAD')).status, `HEAD ${path}`).toBe(200);
      }

      const ps = await run('ps', ['-o', 'user=,args=', '-p', String(child.pid)]);
      if (asRoot) expect(ps.stdout).toMatch(/^nobody\s/);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(out).toContain('drain: closed');
      expect(out).not.toMatch(/EACCES|EROFS|"level":(50|60)/);
      expect(snapshot(app)).toEqual(before);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 90_000);
});
