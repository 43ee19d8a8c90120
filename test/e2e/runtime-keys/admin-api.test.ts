// The admin API for runtime keys against the real gateway (memory backend) in front of the scripted
// upstream: a key created through the API is served through the official SDKs with its limits and
// budget, shows its expiry in /v1/usage, can be disabled, rotated (with and without a grace period)
// and revoked; teams the same; every route refuses bad input with a 400 naming the field, model keys
// with 403 and callers without a key with 401; the audit keeps every change; and the secret never
// appears in a log line, /metrics, /status.json or an error body.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type BuiltApp } from '../../../src/app.js';
import { resolveConfig } from '../../../src/config/load-config.js';
import { startScriptedUpstream, type Reply, type ScriptedUpstream } from '../../support/scripted-upstream/index.js';
import { captureLogger, type CapturedLogger } from '../../unit/observability/support.js';

const ADMIN = 'admin-secret-0001';
const MODEL_KEY = 'config-model-key-0002';
const OK: Reply = { kind: 'reply', blocks: [{ type: 'text', text: 'Hello.' }], usage: { input: 12, output: 9 } };
/** 12×$3 + 9×$15 per million. */
const COST_USD = 171e-6;

let upstream: ScriptedUpstream;
let gateway: BuiltApp;
let log: CapturedLogger;
let url: string;
/** Every secret the API handed out, and every body it answered, to search at the end. */
const secrets: string[] = [];
const bodies: string[] = [];

beforeAll(async () => {
  upstream = await startScriptedUpstream({ defaultReply: () => OK });
  log = captureLogger('info');
  const raw = {
    server: { host: '127.0.0.1', port: 0 },
    log: { level: 'info' },
    status: { enabled: true },
    auth: {
      keys: [{ name: 'config-key', key: MODEL_KEY }],
      teams: { 'config-team': { limits: { rpm: 1000 } } },
      admin_keys: [{ name: 'ops', key: ADMIN }],
    },
    providers: { up: { protocol: 'responses', base_url: upstream.url + '/v1', api_key: 'upstream-key', retry: { attempts: 1 } } },
    models: {
      'via-responses': { provider: 'up', model: 'gpt-upstream-1', price: { input: 3, output: 15 } },
      'other-model': { provider: 'up', model: 'gpt-upstream-2' },
    },
  };
  gateway = buildApp(resolveConfig(raw, 'test'), { logger: log.logger });
  await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  gateway.setReady(true);
  const address = gateway.app.server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});

afterAll(async () => {
  await gateway?.app.close();
  await upstream?.close();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function call(method: string, path: string, body?: unknown, key: string | null = ADMIN): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = {};
  if (key !== null) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url + path, { method, headers, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body), signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  bodies.push(text);
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
}

async function create(body: Record<string, unknown>): Promise<string> {
  const r = await call('POST', '/admin/keys', body);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  secrets.push(r.body.key);
  return r.body.key as string;
}

const ask = (key: string, model = 'via-responses') =>
  new OpenAI({ baseURL: url + '/v1', apiKey: key, maxRetries: 0, timeout: 10_000 }).responses.create({ model, input: 'hi', store: false });

describe('runtime keys through the admin API', () => {
  it('create answers 201 with the stored fields and the secret once; the key is served at once', async () => {
    const expires = new Date(Date.now() + 3_600_000).toISOString();
    const r = await call('POST', '/admin/keys', { name: 'ci-job', models: ['via-*'], limits: { rpm: 100 }, expires_at: expires, metadata: { owner: 'platform' } });
    expect(r.status).toBe(201);
    secrets.push(r.body.key);
    expect(r.body.key).toMatch(/^sk-sy-rt-[A-Za-z0-9_-]{43}$/);
    expect(r.body).toMatchObject({ name: 'ci-job', models: ['via-*'], limits: { rpm: 100 }, expires_at: expires, metadata: { owner: 'platform' }, disabled: false, created_by: 'ops' });
    expect(r.body.prefix).toBe(r.body.key.slice(0, 16));
    expect(r.body.sha256).toBeUndefined();

    const before = upstream.received.length;
    const answer = await ask(r.body.key);
    expect(answer.output_text).toBe('Hello.');
    expect(upstream.received.length).toBe(before + 1);
    expect(upstream.received.at(-1)!.body).toMatchObject({ model: 'gpt-upstream-1' });
    // Its allow-list holds: a model outside it is not found.
    await expect(ask(r.body.key, 'other-model')).rejects.toBeInstanceOf(OpenAI.NotFoundError);

    const usage = await call('GET', '/v1/usage', undefined, r.body.key);
    expect(usage.status).toBe(200);
    expect(usage.body).toMatchObject({ key: 'ci-job', expires_at: expires });
    expect(usage.body.limits).toEqual([expect.objectContaining({ scope: 'key', limit: 'rpm', max: 100, used: 1 })]);
    // Config keys never expire.
    expect((await call('GET', '/v1/usage', undefined, MODEL_KEY)).body.expires_at).toBeNull();

    // Lists and gets never carry a secret or its digest.
    const list = await call('GET', '/admin/keys');
    expect(list.status).toBe(200);
    expect(list.body.data.map((k: { name: string }) => k.name)).toContain('ci-job');
    const one = await call('GET', '/admin/keys/ci-job');
    expect(one.body).toMatchObject({ name: 'ci-job', prefix: r.body.prefix });
    expect(JSON.stringify([list.body, one.body])).not.toContain(r.body.key);
    expect(JSON.stringify([list.body, one.body])).not.toMatch(/sha256/);
  });

  it('disable and enable, expiry, revoke', async () => {
    const key = await create({ name: 'contractor' });
    await ask(key);
    expect((await call('PATCH', '/admin/keys/contractor', { disabled: true })).body.disabled).toBe(true);
    const refused = await ask(key).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((refused as Error).message).toContain('API key disabled');
    await call('PATCH', '/admin/keys/contractor', { disabled: false });
    await ask(key);
    // An expiry a moment away: served now, refused once it passed.
    const soon = new Date(Date.now() + 600).toISOString();
    expect((await call('PATCH', '/admin/keys/contractor', { expires_at: soon })).status).toBe(200);
    await ask(key);
    await new Promise((r) => setTimeout(r, 700));
    expect(((await ask(key).catch((e: unknown) => e)) as Error).message).toContain('API key expired');
    await call('PATCH', '/admin/keys/contractor', { expires_at: null });
    await ask(key);
    expect((await call('DELETE', '/admin/keys/contractor')).status).toBe(204);
    expect(await ask(key).catch((e: unknown) => e)).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((await call('GET', '/admin/keys/contractor')).status).toBe(404);
    expect((await call('DELETE', '/admin/keys/contractor')).status).toBe(404);
  });

  it('rotate: a new secret; the old one dies at once, or after the grace period', async () => {
    const first = await create({ name: 'rotating' });
    const r1 = await call('POST', '/admin/keys/rotating/rotate', {});
    expect(r1.status).toBe(200);
    secrets.push(r1.body.key);
    expect(r1.body.key).not.toBe(first);
    expect(r1.body.previous).toBeUndefined();
    await ask(r1.body.key);
    expect(await ask(first).catch((e: unknown) => e)).toBeInstanceOf(OpenAI.AuthenticationError);

    const r2 = await call('POST', '/admin/keys/rotating/rotate', { grace_s: 1 });
    secrets.push(r2.body.key);
    expect(r2.body.previous).toMatchObject({ prefix: r1.body.prefix });
    await ask(r2.body.key);
    await ask(r1.body.key); // within the grace period
    await new Promise((r) => setTimeout(r, 1100));
    expect(await ask(r1.body.key).catch((e: unknown) => e)).toBeInstanceOf(OpenAI.AuthenticationError);
    await ask(r2.body.key);
    // A rotate without a body is a rotate without grace.
    const r3 = await fetch(url + '/admin/keys/rotating/rotate', { method: 'POST', headers: { authorization: `Bearer ${ADMIN}` } });
    expect(r3.status).toBe(200);
    const r3text = await r3.text();
    bodies.push(r3text);
    secrets.push((JSON.parse(r3text) as { key: string }).key);
  });

  it('a runtime budget refuses once spent, and a runtime team limits its keys', async () => {
    const team = await call('POST', '/admin/teams', { name: 'research', limits: { rpm: 2 }, metadata: { cost_center: 42 } });
    expect(team.status).toBe(201);
    expect(team.body).toMatchObject({ name: 'research', limits: { rpm: 2 }, disabled: false });
    const key = await create({ name: 'researcher', team: 'research', budget: { usd: COST_USD * 1.5, period: 'day' } });
    await ask(key);
    await ask(key); // admitted under budget (spent 1×), takes it over
    const refused = await ask(key).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
    expect((refused as Error).message).toMatch(/budget/);
    // The team's rpm too: another key of the team gets one request left of 2 → refused now.
    const mate = await create({ name: 'mate', team: 'research' });
    const refusedMate = await ask(mate).catch((e: unknown) => e);
    expect(refusedMate).toBeInstanceOf(OpenAI.RateLimitError);
    expect((refusedMate as Error).message).toContain('team "research"');
    // Disabling the team refuses its keys; a team with keys cannot be deleted.
    await call('PATCH', '/admin/teams/research', { disabled: true, limits: null });
    expect(((await ask(mate).catch((e: unknown) => e)) as Error).message).toContain('team disabled');
    expect((await call('DELETE', '/admin/teams/research')).status).toBe(409);
    await call('DELETE', '/admin/keys/mate');
    await call('DELETE', '/admin/keys/researcher');
    expect((await call('DELETE', '/admin/teams/research')).status).toBe(204);
    expect((await call('GET', '/admin/teams/research')).status).toBe(404);
    // The admin view lists runtime keys beside config keys.
    const view = await call('GET', '/admin/usage');
    expect(view.body.keys.map((k: { key: string }) => k.key)).toEqual(expect.arrayContaining(['config-key', 'ci-job']));
  });

  it('a runtime key may belong to a config team', async () => {
    const key = await create({ name: 'in-config-team', team: 'config-team' });
    await ask(key);
    expect((await call('GET', '/v1/usage', undefined, key)).body.team).toBe('config-team');
  });

  it('bad input on every route: 400 naming the field', async () => {
    const cases: [string, string, unknown, string][] = [
      ['POST', '/admin/keys', {}, 'name'],
      ['POST', '/admin/keys', { name: 'has space' }, 'name'],
      ['POST', '/admin/keys', { name: 'x1', models: ['no-such-model'] }, 'models.0'],
      ['POST', '/admin/keys', { name: 'x1', models: ['nothing-*'] }, 'models.0'],
      ['POST', '/admin/keys', { name: 'x1', limits: { rpm: -1 } }, 'limits.rpm'],
      ['POST', '/admin/keys', { name: 'x1', limits: { rpm: 1.5 } }, 'limits.rpm'],
      ['POST', '/admin/keys', { name: 'x1', budget: { usd: -3, period: 'day' } }, 'budget.usd'],
      ['POST', '/admin/keys', { name: 'x1', budget: { usd: 3, period: 'year' } }, 'budget.period'],
      ['POST', '/admin/keys', { name: 'x1', metadata: { blob: 'x'.repeat(5000) } }, 'metadata'],
      ['POST', '/admin/keys', { name: 'x1', expires_at: 'tomorrow' }, 'expires_at'],
      ['POST', '/admin/keys', { name: 'x1', expires_at: '2001-01-01T00:00:00Z' }, 'expires_at'],
      ['POST', '/admin/keys', { name: 'x1', team: 'no-such-team' }, 'team'],
      ['POST', '/admin/keys', { name: 'x1', kee: 'sk-pasted-secret' }, 'kee'],
      ['POST', '/admin/keys', { name: 'ci-job' }, 'name'],
      ['POST', '/admin/keys', { name: 'config-key' }, 'name'],
      ['POST', '/admin/keys', { name: 'ops' }, 'name'],
      ['POST', '/admin/keys', [1, 2], '(body)'],
      ['PATCH', '/admin/keys/ci-job', { limits: { concurrency: 0 } }, 'limits.concurrency'],
      ['PATCH', '/admin/keys/ci-job', { disabled: 'yes' }, 'disabled'],
      ['PATCH', '/admin/keys/ci-job', { name: 'renamed' }, 'name'],
      ['PATCH', '/admin/keys/ci-job', { models: ['no-such-model'] }, 'models.0'],
      ['POST', '/admin/keys/ci-job/rotate', { grace_s: -5 }, 'grace_s'],
      ['POST', '/admin/keys/ci-job/rotate', { grace_s: 'soon' }, 'grace_s'],
      ['POST', '/admin/teams', { name: 'config-team' }, 'name'],
      ['POST', '/admin/teams', { name: 't1', limits: { tpm: 0 } }, 'limits.tpm'],
      ['POST', '/admin/teams', { name: 't1', models: ['no-such-model'] }, 'models.0'],
      ['PATCH', '/admin/teams/config-team', { disabled: true }, ''],
    ];
    for (const [method, path, body, field] of cases) {
      const r = await call(method, path, body);
      if (field === '') {
        // A config team is not the API's to change.
        expect(r.status, `${method} ${path}`).toBe(404);
        continue;
      }
      expect(r.status, `${method} ${path} ${JSON.stringify(body).slice(0, 80)}: ${JSON.stringify(r.body)}`).toBe(400);
      expect(r.body.error.type).toBe('invalid_request_error');
      expect(r.body.error.param, `${method} ${path}`).toBe(field);
      expect(r.body.error.message).toContain(field === '(body)' ? 'object' : field);
    }
    // The pasted secret under a misspelt field is not echoed.
    expect(bodies.join('\n')).not.toContain('sk-pasted-secret');
    // Malformed JSON: 400 too.
    const bad = await call('POST', '/admin/keys', '{"name":');
    expect(bad.status).toBe(400);
    expect((await call('GET', '/admin/audit?limit=0')).status).toBe(400);
    expect((await call('GET', '/admin/audit?limit=abc')).body.error.param).toBe('limit');
    // Nothing was created by any of them.
    const names = (await call('GET', '/admin/keys')).body.data.map((k: { name: string }) => k.name);
    expect(names).not.toContain('x1');
  });

  it('model keys get 403, callers without a key 401, wrong keys 401, on every route', async () => {
    const runtimeKey = secrets[0]!;
    const routes: [string, string, unknown?][] = [
      ['POST', '/admin/keys', { name: 'sneaky' }],
      ['GET', '/admin/keys'],
      ['GET', '/admin/keys/ci-job'],
      ['PATCH', '/admin/keys/ci-job', { disabled: true }],
      ['POST', '/admin/keys/ci-job/rotate', {}],
      ['DELETE', '/admin/keys/ci-job'],
      ['POST', '/admin/teams', { name: 'sneaky' }],
      ['GET', '/admin/teams'],
      ['GET', '/admin/teams/x'],
      ['PATCH', '/admin/teams/x', {}],
      ['DELETE', '/admin/teams/x'],
      ['GET', '/admin/audit'],
    ];
    for (const [method, path, body] of routes) {
      expect((await call(method, path, body, MODEL_KEY)).status, `${method} ${path}`).toBe(403);
      expect((await call(method, path, body, runtimeKey)).status, `${method} ${path}`).toBe(403);
      expect((await call(method, path, body, null)).status, `${method} ${path}`).toBe(401);
      expect((await call(method, path, body, 'sk-sy-rt-not-a-key')).status, `${method} ${path}`).toBe(401);
    }
    expect((await call('GET', '/admin/keys/ci-job')).body.disabled).toBe(false);
  });

  it('the audit keeps every change, newest first, and each is a log line', async () => {
    const audit = await call('GET', '/admin/audit?limit=500');
    expect(audit.status).toBe(200);
    const actions = audit.body.data.map((e: { action: string; target: string }) => `${e.action} ${e.target}`);
    expect(actions).toEqual(expect.arrayContaining(['key.create ci-job', 'key.update contractor', 'key.revoke contractor', 'key.rotate rotating', 'team.create research', 'team.delete research']));
    expect(audit.body.data[0]).toMatchObject({ admin: 'ops', action: 'key.create', target: 'in-config-team' });
    expect(Date.parse(audit.body.data[0].at)).toBeGreaterThan(Date.now() - 60_000);
    const lines = log.lines().filter((l) => l.msg === 'admin change');
    expect(lines.length).toBe(audit.body.data.length);
    expect(lines[0]).toMatchObject({ audit: { admin: 'ops', action: 'key.create', target: 'ci-job' } });
  });

  it('no secret in any log line, /metrics, /status.json or answer body', async () => {
    const metrics = await (await fetch(url + '/metrics', { headers: { authorization: `Bearer ${ADMIN}` } })).text();
    const status = await (await fetch(url + '/status.json', { headers: { authorization: `Bearer ${ADMIN}` } })).text();
    expect(metrics).toContain('switchyard_');
    expect(status).toContain('{');
    const createdOnce = bodies.filter((b) => secrets.some((s) => b.includes(s)));
    // Each secret appears in exactly one answer: its create or rotate.
    expect(createdOnce.length).toBe(secrets.length);
    for (const s of secrets) {
      expect(log.raw()).not.toContain(s);
      expect(metrics).not.toContain(s);
      expect(status).not.toContain(s);
      expect(bodies.filter((b) => b.includes(s)).length).toBe(1);
    }
    expect(secrets.length).toBeGreaterThan(8);
  });
});
