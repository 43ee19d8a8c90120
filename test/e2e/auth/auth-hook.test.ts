// Authentication before the body: the onRequest hook answers 401 in each door's envelope for any
// body (even one the JSON parser refuses), for wrong, truncated and padded keys alike, as the
// official SDKs' AuthenticationError; a key is never echoed in an answer or a log line. Hashed keys
// (key_sha256) work; probes need no key, /metrics an admin key; the caller is on the request for the routes.
import Anthropic from '@anthropic-ai/sdk';
import { createHash } from 'node:crypto';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type BuiltApp } from '../../../src/app.js';
import { resolveConfig } from '../../../src/config/load-config.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../../support/scripted-upstream/index.js';
import { captureLogger, type CapturedLogger } from '../../unit/observability/support.js';

const ALICE = 'sk-sy-alice-7f3a9c01d2e4b5a6';
const BOB = 'sk-sy-bob-0a1b2c3d4e5f6a7b';
const OPS = 'sk-sy-ops-99887766554433';
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const REFUSED = {
  wrong: 'sk-sy-mallory-000000000000',
  truncated: ALICE.slice(0, -1),
  padded: ALICE + 'x',
  prefixed: 'x' + ALICE,
  'other case': ALICE.toUpperCase(),
  'the hash itself': sha(ALICE),
};

let upstream: ScriptedUpstream;
let gateway: BuiltApp;
let log: CapturedLogger;
let url: string;

function rawConfig(keys: unknown[]) {
  return {
    server: { host: '127.0.0.1', port: 0, body_limit_bytes: 16 * 1024 },
    log: { level: 'debug' },
    auth: { keys, teams: { research: {} }, admin_keys: [{ name: 'ops', key_sha256: sha(OPS) }] },
    providers: {
      'up-messages': { protocol: 'messages', base_url: upstream.url, api_key: 'upstream-key-m', retry: { attempts: 1 } },
      'up-responses': { protocol: 'responses', base_url: upstream.url + '/v1', api_key: 'upstream-key-r', retry: { attempts: 1 } },
    },
    models: {
      'via-messages': { provider: 'up-messages', model: 'claude-upstream-1' },
      'via-responses': { provider: 'up-responses', model: 'gpt-upstream-1' },
    },
  };
}

const KEYS = [
  { name: 'alice', key_sha256: sha(ALICE), team: 'research' },
  { name: 'bob', key: BOB },
];

beforeAll(async () => {
  upstream = await startScriptedUpstream();
  log = captureLogger('debug');
  gateway = buildApp(resolveConfig(rawConfig(KEYS), 'test'), { logger: log.logger });
  // What the routes will read once they switch to the hook's result.
  gateway.app.get('/v1/test-whoami', async (request) => ({
    name: request.caller?.name,
    team: request.caller?.team ?? null,
    admin: request.caller?.admin,
    anonymous: request.caller?.anonymous,
  }));
  await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  gateway.setReady(true);
  const address = gateway.app.server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});

afterAll(async () => {
  await gateway?.app.close();
  await upstream?.close();
});

const anthropic = (apiKey: string) => new Anthropic({ baseURL: url, apiKey, maxRetries: 0, timeout: 10_000 });
const openai = (apiKey: string) => new OpenAI({ baseURL: url + '/v1', apiKey, maxRetries: 0, timeout: 10_000 });

function expectNoSecretsInLogs(): void {
  const raw = log.raw();
  for (const secret of [ALICE, BOB, OPS, ...Object.values(REFUSED)]) expect(raw).not.toContain(secret);
}

describe('auth hook: before the body', () => {
  it('answers 401 to a body the JSON parser would refuse, in each door’s envelope, and never calls upstream', async () => {
    const before = upstream.received.length;
    const cases: [string, Record<string, string>, string][] = [
      ['/v1/messages', { 'content-type': 'application/json', 'x-api-key': REFUSED.wrong }, '{not json'],
      ['/v1/messages', { 'content-type': 'text/plain' }, 'plain words'],
      ['/v1/responses', { 'content-type': 'application/json', authorization: `Bearer ${REFUSED.padded}` }, '{"model": '],
      ['/v1/responses', { 'content-type': 'application/json' }, ''],
    ];
    for (const [path, headers, body] of cases) {
      const res = await fetch(url + path, { method: 'POST', headers, body });
      const text = await res.text();
      expect(res.status, `${path} ${body}`).toBe(401);
      if (path === '/v1/messages') {
        expect(JSON.parse(text)).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
        expect(res.headers.get('request-id')).toBeTruthy();
      } else {
        expect(JSON.parse(text)).toMatchObject({ error: { type: 'invalid_request_error', code: 'invalid_api_key' } });
        expect(res.headers.get('x-request-id')).toBeTruthy();
      }
      for (const secret of Object.values(REFUSED)) expect(text).not.toContain(secret);
    }
    // Even a body over the gateway's limit gets 401, not 413: nothing was read.
    const big = await fetch(url + '/v1/messages', { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'x'.repeat(64 * 1024) });
    expect(big.status).toBe(401);
    await big.arrayBuffer();
    const bigWithKey = await fetch(url + '/v1/messages', { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': BOB }, body: 'x'.repeat(64 * 1024) });
    expect(bigWithKey.status).toBe(413);
    await bigWithKey.arrayBuffer();
    expect(upstream.received.length).toBe(before);
  });

  it('refuses wrong, truncated, padded, prefixed, re-cased keys and the hash itself, as the SDKs’ AuthenticationError', async () => {
    for (const [label, key] of Object.entries(REFUSED)) {
      const a = await anthropic(key)
        .messages.create({ model: 'via-messages', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] })
        .catch((e: unknown) => e);
      expect(a, label).toBeInstanceOf(Anthropic.AuthenticationError);
      expect((a as InstanceType<typeof Anthropic.AuthenticationError>).message).not.toContain(key);
      const o = await openai(key)
        .responses.create({ model: 'via-responses', input: 'hi' })
        .catch((e: unknown) => e);
      expect(o, label).toBeInstanceOf(OpenAI.AuthenticationError);
      expect((o as InstanceType<typeof OpenAI.AuthenticationError>).code).toBe('invalid_api_key');
      expect((o as Error).message).not.toContain(key);
    }
    expectNoSecretsInLogs();
  });

  it('says a key is missing when none was sent', async () => {
    const res = await fetch(url + '/v1/messages', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/^missing API key/);
  });
});

describe('auth hook: accepted keys', () => {
  it('serves a hashed key (key_sha256) and a plain key through the official SDKs, upstream seeing its own key', async () => {
    upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'hello alice' }] }, { kind: 'reply', blocks: [{ type: 'text', text: 'hello bob' }] });
    const m = await anthropic(ALICE).messages.create({ model: 'via-messages', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] });
    expect(m.content[0]).toMatchObject({ type: 'text', text: 'hello alice' });
    const r = await openai(BOB).responses.create({ model: 'via-responses', input: 'hi' });
    expect(r.output_text).toBe('hello bob');
    const sent = upstream.received.slice(-2);
    expect(sent.map((s) => s.headers['x-api-key'] ?? s.headers.authorization)).toEqual(['upstream-key-m', 'Bearer upstream-key-r']);
    expectNoSecretsInLogs();
  });

  it('stores the caller on the request: key name, team, admin flag', async () => {
    const who = async (key: string) => (await fetch(url + '/v1/test-whoami', { headers: { 'x-api-key': key } })).json();
    expect(await who(ALICE)).toEqual({ name: 'alice', team: 'research', admin: false, anonymous: false });
    expect(await who(BOB)).toEqual({ name: 'bob', team: null, admin: false, anonymous: false });
    expect(await who(OPS)).toEqual({ name: 'ops', team: null, admin: true, anonymous: false });
    expect((await fetch(url + '/v1/test-whoami', { headers: { 'x-api-key': REFUSED.truncated } })).status).toBe(401);
  });

  it('needs no key for health and readiness; /metrics an admin key (there are keys); unknown routes need one', async () => {
    for (const path of ['/livez', '/healthz', '/readyz', '/']) expect((await fetch(url + path)).status, path).toBe(200);
    expect((await fetch(url + '/metrics')).status).toBe(401);
    expect((await fetch(url + '/metrics', { headers: { 'x-api-key': BOB } })).status).toBe(403);
    expect((await fetch(url + '/metrics', { headers: { authorization: `Bearer ${OPS}` } })).status).toBe(200);
    expect((await fetch(url + '/v1/nowhere')).status).toBe(401);
    expect((await fetch(url + '/v1/nowhere', { headers: { 'x-api-key': BOB } })).status).toBe(404);
  });
});

describe('auth hook: hot reload', () => {
  it('applies a reloaded key set to the next request; admin keys alone keep it closed', async () => {
    const who = async (key?: string) => {
      const res = await fetch(url + '/v1/test-whoami', { headers: key ? { 'x-api-key': key } : {} });
      return res.status === 200 ? ((await res.json()) as { name: string }).name : res.status;
    };
    const CAROL = 'sk-sy-carol-1234567890abcd';
    gateway.reload(resolveConfig(rawConfig([{ name: 'carol', key: CAROL }]), 'test'));
    expect(await who(CAROL)).toBe('carol');
    expect(await who(BOB)).toBe(401);
    gateway.reload(resolveConfig(rawConfig([]), 'test'));
    expect(await who()).toBe(401);
    expect(await who(OPS)).toBe('ops');
    gateway.reload(resolveConfig(rawConfig(KEYS), 'test'));
    expect(await who(BOB)).toBe('bob');
  });
});
