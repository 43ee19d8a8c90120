// status.json and the page's files over HTTP, in-process: off by default, on with status.enabled, under
// status.path_prefix, switched by a reload, open without admin keys; the embedded default config; the
// reload hook behind "last reload"; the page files found from the package root (src/ and dist/ alike).
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../../src/config/default-config.js';
import { loadConfig, resolveConfig } from '../../../src/config/load-config.js';
import { createConfigReloader } from '../../../src/config/reload.js';
import { PACKAGE_ROOT } from '../../../src/status/package-root.js';
import { PAGE_DIR } from '../../../src/status/page-files.js';
import { startHarness, type Harness } from '../../support/gateway-harness.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('status routes', () => {
  it('are off unless status.enabled', async () => {
    harness = await startHarness();
    expect((await fetch(harness.url + '/status')).status).toBe(404);
    expect((await fetch(harness.url + '/status.json')).status).toBe(404);
  });

  it('serve the page, its files and its data under status.path_prefix, and follow a reload that switches them off', async () => {
    harness = await startHarness({ config: () => ({ status: { enabled: true, path_prefix: '/gw' } }) });
    const page = await fetch(harness.url + '/gw/status');
    expect(page.status).toBe(200);
    const html = await page.text();
    // Relative links: the page also works behind a proxy that strips its prefix.
    expect(html).toContain('src="status/status.js"');
    expect(html).toContain('<meta name="switchyard-auth" content="none">');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    const script = await fetch(harness.url + '/gw/status/status.js');
    expect(script.headers.get('content-type')).toContain('text/javascript');
    expect(await script.text()).toContain("new URL('status.json', location.href)");
    expect((await fetch(harness.url + '/gw/status/status.css')).status).toBe(200);
    expect((await fetch(harness.url + '/gw/status/keys-console.js')).status).toBe(200);
    // No admin keys, so no admin API: the keys console stays out.
    expect(html).toContain('<meta name="switchyard-admin" content="">');
    expect((await fetch(harness.url + '/status')).status).toBe(404);

    // No admin keys: the data is open (the page had to be switched on explicitly).
    const reply = await harness.anthropic.messages.create({ model: 'via-messages', max_tokens: 16, messages: [{ role: 'user', content: 'hello PROMPT-MARKER-5521' }] });
    const answerText = reply.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
    expect(answerText.length).toBeGreaterThan(5);
    const res = await fetch(harness.url + '/gw/status.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const text = await res.text();
    // Metadata only: neither the prompt nor the answer the upstream gave.
    expect(text).not.toContain('PROMPT-MARKER');
    expect(text).not.toContain(answerText);
    const body = JSON.parse(text) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(Object.keys(body)).toEqual(['schema', 'generated_at', 'instance', 'routes', 'deployments', 'untracked_deployments', 'traffic', 'access', 'recent']);
    expect(body.instance).toMatchObject({ version: JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')).version, workers: 1, draining: false, instances: null, last_reload: null });
    expect(body.instance.config.sha256).toMatch(/^[0-9a-f]{12}$/);
    expect(body.instance.state).toEqual({ backend: 'memory', reachable: true, error: null });
    expect(body.routes.map((r: { alias: string }) => r.alias)).toEqual(['via-messages', 'via-responses', 'via-chat', 'via-gemini']);
    expect(body.deployments.find((d: { deployment: string }) => d.deployment === 'up-messages/claude-upstream-1').windows['1m']).toMatchObject({ requests: 1, errors: 0 });
    expect(body.recent).toHaveLength(1);
    expect(body.recent[0]).toMatchObject({ door: 'messages', alias: 'via-messages', lane: 'passthrough', status: 200, key: 'anonymous' });

    const raw = { ...harnessRaw(harness.upstream.url), status: { enabled: false, path_prefix: '/gw' } };
    harness.gateway.reload(resolveConfig(raw, 'reloaded'));
    expect((await fetch(harness.url + '/gw/status.json')).status).toBe(404);
    expect((await fetch(harness.url + '/gw/status')).status).toBe(404);
  });
});

describe('the embedded default config', () => {
  it('enables the status page on loopback only', () => {
    expect(loadConfig({ env: {} }).status).toEqual({ enabled: true, pathPrefix: '', public: false });
    expect(defaultConfig({ SWITCHYARD_HOST: '0.0.0.0' }).status?.enabled).toBe(false);
    // Beyond loopback the embedded default does not load at all: it has no keys (docs/security.md).
    expect(() => loadConfig({ env: { SWITCHYARD_HOST: '0.0.0.0' } })).toThrow(/auth/);
  });

  it('refuses a path_prefix that is not a path', () => {
    expect(() => resolveConfig({ auth: { open: true }, providers: {}, models: {}, status: { path_prefix: 'gw/' } }, 't')).toThrow(/status\.path_prefix/);
  });
});

describe('the reload hook', () => {
  it('reports applied and refused reloads, not unchanged ones', () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchyard-status-reload-'));
    const file = join(dir, 'config.yaml');
    writeFileSync(file, 'auth: { open: true }\nproviders: { demo: { protocol: demo } }\nmodels: { demo: { provider: demo } }\n');
    const seen: string[] = [];
    const quiet = { info() {}, error() {} };
    const reloader = createConfigReloader({ file, env: {}, apply() {}, logger: quiet, onOutcome: (o, why) => seen.push(why + ':' + o.status) });
    reloader.reload('SIGHUP');
    writeFileSync(file, 'providers: { demo: { protocol: nope } }\n');
    reloader.reload('SIGHUP');
    writeFileSync(file, 'auth: { open: true }\nproviders: { demo: { protocol: demo } }\nmodels: { d2: { provider: demo } }\n');
    reloader.reload('SIGHUP', true);
    expect(seen).toEqual(['SIGHUP:refused', 'SIGHUP:applied']);
  });
});

describe('the keys console', () => {
  it('finds the admin API relative to the page, so a proxy that strips a prefix serves both', async () => {
    harness = await startHarness({ config: () => ({ status: { enabled: true, path_prefix: '/ops/gw' }, auth: { keys: [{ name: 'caller', key: 'caller-key-0001' }], admin_keys: [{ name: 'ops', key: 'admin-key-0001' }] } }) });
    const html = await (await fetch(harness.url + '/ops/gw/status')).text();
    expect(html).toContain('<meta name="switchyard-admin" content="../../admin/">');
    expect(new URL('../../admin/keys', harness.url + '/ops/gw/status').pathname).toBe('/admin/keys');
    expect((await fetch(harness.url + '/admin/keys', { headers: { 'x-api-key': 'admin-key-0001' } })).status).toBe(200);
  });
});

describe('the page files', () => {
  it('sit next to the module that reads them, where the build copies them into dist/ too', () => {
    expect(PAGE_DIR).toBe(join(PACKAGE_ROOT, 'src', 'status', 'page'));
    for (const f of ['status.html', 'status.js', 'keys-console.js', 'status.css']) expect(existsSync(join(PAGE_DIR, f))).toBe(true);
    expect(existsSync(join(PACKAGE_ROOT, 'package.json'))).toBe(true);
    const build = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'tsconfig.build.json'), 'utf8')) as { compilerOptions: { rootDir: string; outDir: string } };
    expect(build.compilerOptions).toMatchObject({ rootDir: 'src', outDir: 'dist' });
    const scripts = (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.build).toContain('node scripts/copy-status-page.mjs');
  });
});

/** The harness's own config, rebuilt for a reload. */
function harnessRaw(base: string): Record<string, unknown> {
  const provider = (protocol: string) => ({ protocol, base_url: protocol === 'messages' ? base : base + '/v1', api_key: `upstream-key-${protocol}`, retry: { attempts: 1 } });
  return {
    auth: { open: true },
    server: { host: '127.0.0.1', port: 0 },
    log: { level: 'silent' },
    providers: { 'up-messages': provider('messages'), 'up-responses': provider('responses'), 'up-chat': provider('chat') },
    models: {
      'via-messages': { provider: 'up-messages', model: 'claude-upstream-1' },
      'via-responses': { provider: 'up-responses', model: 'gpt-upstream-1' },
      'via-chat': { provider: 'up-chat', model: 'chat-upstream-1' },
    },
  };
}
