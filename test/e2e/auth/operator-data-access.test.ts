// Who may read the operator's data on the API port (review R4, docs/security.md § Status data and
// metrics): /status.json and /metrics, for every configuration row (open; admin keys; keys without admin
// keys; status.public / metrics.public) and every caller (no key, a wrong key, a caller key, an admin
// key by x-api-key and by Bearer); the configs refused at load and by a reload; the warnings; the
// page's login switch. Public data still goes through the Host/Origin guard.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type BuiltApp } from '../../../src/app.js';
import { loadConfig, resolveConfig } from '../../../src/config/load-config.js';
import { operatorDataExposure } from '../../../src/config/operator-access.js';
import { createConfigReloader } from '../../../src/config/reload.js';

const CALLER = 'k-caller-r4-0123456789';
const ADMIN = 'k-admin-r4-0123456789';
const WRONG = 'k-wrong-r4-0123456789';

const keys = { keys: [{ name: 'tenant-acme', key: CALLER, budget: { usd: 500, period: 'month' } }] };
const admins = { admin_keys: [{ name: 'ops', key: ADMIN }] };

function raw(auth: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const { status, metrics, ...rest } = extra as { status?: object; metrics?: object };
  return {
    server: { host: '127.0.0.1', port: 0 },
    log: { level: 'silent' },
    auth,
    status: { enabled: true, ...status },
    metrics: { ...metrics },
    providers: { demo: { protocol: 'demo' } },
    models: { demo: { provider: 'demo' } },
    ...rest,
  };
}

type Who = 'none' | 'wrong' | 'caller' | 'admin' | 'admin bearer';
const HEADERS: Record<Who, Record<string, string>> = {
  none: {},
  wrong: { 'x-api-key': WRONG },
  caller: { 'x-api-key': CALLER },
  admin: { 'x-api-key': ADMIN },
  'admin bearer': { authorization: `Bearer ${ADMIN}` },
};

let gateway: BuiltApp;
let url: string;

beforeAll(async () => {
  gateway = buildApp(resolveConfig(raw({ open: true }), 'test'), { logger: pino({ level: 'silent' }) });
  await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  gateway.setReady(true);
  url = `http://127.0.0.1:${(gateway.app.server.address() as { port: number }).port}`;
  // One generation, so the data has a key name and a request to leak.
  const res = await fetch(url + '/v1/messages', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'demo', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }) });
  expect(res.status).toBe(200);
});
afterAll(async () => {
  await gateway.app.close();
});

async function read(path: string, who: Who): Promise<{ status: number; text: string }> {
  const res = await fetch(url + path, { headers: HEADERS[who] });
  return { status: res.status, text: await res.text() };
}

/** Expected status per caller, for /status.json and /metrics under one configuration. */
const ROWS: { name: string; auth: Record<string, unknown>; extra?: Record<string, unknown>; status: Record<Who, number> | 'off'; metrics: Record<Who, number> }[] = [
  {
    name: 'open, no admin keys (the embedded default)',
    auth: { open: true },
    status: { none: 200, wrong: 200, caller: 200, admin: 200, 'admin bearer': 200 },
    metrics: { none: 200, wrong: 200, caller: 200, admin: 200, 'admin bearer': 200 },
  },
  {
    name: 'open with admin keys',
    auth: { open: true, ...admins },
    status: { none: 401, wrong: 401, caller: 401, admin: 200, 'admin bearer': 200 },
    metrics: { none: 401, wrong: 401, caller: 401, admin: 200, 'admin bearer': 200 },
  },
  {
    name: 'keys and admin keys',
    auth: { ...keys, ...admins },
    status: { none: 401, wrong: 401, caller: 403, admin: 200, 'admin bearer': 200 },
    metrics: { none: 401, wrong: 401, caller: 403, admin: 200, 'admin bearer': 200 },
  },
  {
    name: 'keys, no admin keys, page off',
    auth: keys,
    extra: { status: { enabled: false } },
    status: 'off',
    metrics: { none: 403, wrong: 403, caller: 403, admin: 403, 'admin bearer': 403 },
  },
  {
    name: 'keys, no admin keys, status.public and metrics.public',
    auth: keys,
    extra: { status: { public: true }, metrics: { public: true } },
    status: { none: 200, wrong: 200, caller: 200, admin: 200, 'admin bearer': 200 },
    metrics: { none: 200, wrong: 200, caller: 200, admin: 200, 'admin bearer': 200 },
  },
  {
    name: 'keys, admin keys, metrics.public only',
    auth: { ...keys, ...admins },
    extra: { metrics: { public: true } },
    status: { none: 401, wrong: 401, caller: 403, admin: 200, 'admin bearer': 200 },
    metrics: { none: 200, wrong: 200, caller: 200, admin: 200, 'admin bearer': 200 },
  },
];

describe('who reads /status.json and /metrics on the API port', () => {
  for (const row of ROWS) {
    it(row.name, async () => {
      gateway.reload(resolveConfig(raw(row.auth, row.extra), 'test'));
      for (const who of Object.keys(HEADERS) as Who[]) {
        if (row.status === 'off') {
          expect((await read('/status.json', who)).status).toBe(404);
        } else {
          const status = await read('/status.json', who);
          expect(status.status, `status.json, ${who}`).toBe(row.status[who]);
          if (status.status === 200) expect(JSON.parse(status.text).schema).toBe(1);
          else {
            expect(status.text).not.toMatch(/tenant-acme|"recent"/);
            expect(JSON.parse(status.text).error.type).toBe(status.status === 401 ? 'authentication_error' : 'permission_error');
          }
        }
        const metrics = await read('/metrics', who);
        expect(metrics.status, `metrics, ${who}`).toBe(row.metrics[who]);
        if (metrics.status === 200) expect(metrics.text).toMatch(/^switchyard_requests_total/m);
        else expect(metrics.text).not.toMatch(/switchyard_|tenant-acme/);
      }
    });
  }

  it('says why in its refusals: which key is needed and what to set', async () => {
    gateway.reload(resolveConfig(raw(keys, { status: { enabled: false } }), 'test'));
    expect(JSON.parse((await read('/metrics', 'none')).text).error.message).toBe(
      '/metrics on the API port needs a key from auth.admin_keys and none are configured: set metrics.port (a private listener), add auth.admin_keys, or set metrics.public: true',
    );
    gateway.reload(resolveConfig(raw({ ...keys, ...admins }), 'test'));
    expect(JSON.parse((await read('/status.json', 'none')).text).error.message).toMatch(/the status data needs a key from auth\.admin_keys/);
    expect(JSON.parse((await read('/metrics', 'caller')).text).error.message).toBe('/metrics on the API port needs a key from auth.admin_keys');
  });

  it('the page asks for a key exactly when the data needs one', async () => {
    const meta = async () => /content="(\w+)"/.exec((await read('/status', 'none')).text.match(/<meta name="switchyard-auth"[^>]*>/)![0])![1];
    gateway.reload(resolveConfig(raw({ ...keys, ...admins }), 'test'));
    expect(await meta()).toBe('required');
    gateway.reload(resolveConfig(raw({ ...keys, ...admins }, { status: { public: true } }), 'test'));
    expect(await meta()).toBe('none');
    gateway.reload(resolveConfig(raw({ open: true }), 'test'));
    expect(await meta()).toBe('none');
  });

  it('public data is still refused to a foreign Origin (the Host/Origin guard)', async () => {
    gateway.reload(resolveConfig(raw(keys, { status: { public: true }, metrics: { public: true } }), 'test'));
    for (const path of ['/status.json', '/metrics']) {
      const res = await fetch(url + path, { headers: { origin: 'https://evil.example' } });
      expect(res.status, path).toBe(403);
      expect(JSON.parse(await res.text()).error.message).toMatch(/^Origin "https:\/\/evil\.example" is not allowed/);
    }
  });
});

describe('the configuration', () => {
  it('refuses status.enabled with keys and no admin keys, unless status.public says so', () => {
    expect(() => resolveConfig(raw(keys), 't')).toThrow(/^status\.enabled: the status data names every key.*needs auth\.admin_keys.*status\.public: true/);
    expect(resolveConfig(raw(keys, { status: { public: true } }), 't').status.public).toBe(true);
    expect(resolveConfig(raw({ ...keys, ...admins }), 't').status.public).toBe(false);
    // A disabled admin key is no admin key.
    expect(() => resolveConfig(raw({ ...keys, admin_keys: [{ name: 'ops', key: '', disabled: true }] }), 't')).toThrow(/^status\.enabled:/);
  });

  it('refuses metrics.public with metrics.port, and misspelt keys', () => {
    expect(() => resolveConfig(raw(keys, { status: { enabled: false }, metrics: { public: true, port: 9464 } }), 't')).toThrow(/^metrics\.public: only for \/metrics on the API port/);
    expect(() => resolveConfig(raw(keys, { status: { publc: true } }), 't')).toThrow(/status\.publc: unknown key/);
    expect(() => resolveConfig(raw(keys, { status: { enabled: false }, metrics: { pubic: true } }), 't')).toThrow(/metrics\.pubic: unknown key/);
    expect(() => resolveConfig(raw(keys, { status: { public: 'yes' } }), 't')).toThrow(/status\.public/);
  });

  it('a reload that would leave the page with nobody to read it is refused; the running one stays', () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchyard-r4-'));
    const file = join(dir, 'config.yaml');
    writeFileSync(file, JSON.stringify(raw({ ...keys, ...admins })));
    const running = loadConfig({ file, env: {} });
    const applied: unknown[] = [];
    const errors: string[] = [];
    const reloader = createConfigReloader({ file, env: {}, running, apply: (c) => applied.push(c), logger: { info: () => undefined, error: (o) => errors.push((o as { error: string }).error) } });
    writeFileSync(file, JSON.stringify(raw(keys)));
    const outcome = reloader.reload('SIGHUP', true);
    expect(outcome.status).toBe('refused');
    expect(errors[0]).toMatch(/^status\.enabled: .*needs auth\.admin_keys/);
    expect(applied).toHaveLength(0);
    writeFileSync(file, JSON.stringify(raw(keys, { status: { public: true } })));
    expect(reloader.reload('SIGHUP', true).status).toBe('applied');
    reloader.close();
  });
});

describe('the warnings (start-up and every applied reload)', () => {
  const warn = (auth: Record<string, unknown>, extra: Record<string, unknown> = {}, source = 'f.yaml') => operatorDataExposure({ ...resolveConfig(raw(auth, extra), 't'), source });

  it('name what is readable without a key, whatever the host (a proxy makes loopback public)', () => {
    expect(warn(keys, { status: { public: true }, metrics: { public: true } })).toEqual([
      expect.stringMatching(/^status data readable without a key \(status\.public: true\)/),
      expect.stringMatching(/^\/metrics on the API port readable without a key \(metrics\.public: true\)/),
    ]);
    expect(warn({ open: true })).toEqual([expect.stringMatching(/auth\.open: true without auth\.admin_keys/), expect.stringMatching(/auth\.open: true without auth\.admin_keys/)]);
    expect(warn({ open: true }, { server: { host: '0.0.0.0' } })).toHaveLength(2);
  });

  it('say when /metrics is refused for want of admin keys', () => {
    expect(warn(keys, { status: { enabled: false } })).toEqual([expect.stringMatching(/^\/metrics on the API port needs a key from auth\.admin_keys and none are configured, so it answers 403/)]);
    expect(warn(keys, { status: { enabled: false }, metrics: { port: 9464 } })).toEqual([]);
    expect(warn(keys, { status: { enabled: false }, metrics: { enabled: false } })).toEqual([]);
  });

  it('are quiet when admin keys guard both, and for the embedded default (open on loopback only, said by its own warning)', () => {
    expect(warn({ ...keys, ...admins })).toEqual([]);
    expect(operatorDataExposure(loadConfig({ env: {} }))).toEqual([]);
  });
});
