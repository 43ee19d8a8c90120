// DNS rebinding and cross-site pages against what is served without a key (review R5): the embedded
// default (open on loopback, status on) refuses a rebound Host and a foreign Origin with a 403 in the
// door's envelope before any work — nothing reaches the upstream — on the three doors, WebSocket upgrades, /status.json,
// /metrics and the metrics listener; the official SDKs (Host 127.0.0.1:PORT or localhost:PORT) and
// same-origin pages still pass; server.allowed_hosts extends the names, is strict, and follows reloads;
// a request with a valid key is not Host-checked.
import Anthropic from '@anthropic-ai/sdk';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import pino from 'pino';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type BuiltApp } from '../../../src/app.js';
import { loadConfig, resolveConfig } from '../../../src/config/load-config.js';
import { startMetricsServer } from '../../../src/http/metrics-server.js';
import { MODELS, startHarness, type Harness } from '../../support/gateway-harness.js';

interface Answer {
  status: number;
  body: string;
  json: () => any;
}

/** node:http, so Host and Origin go out exactly as given (fetch would set Host itself). */
function send(port: number, path: string, headers: Record<string, string>, body?: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = httpRequest(
      { host: '127.0.0.1', port, path, method: payload ? 'POST' : 'GET', headers: { ...(payload ? { 'content-type': 'application/json' } : {}), ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, json: () => JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const MESSAGE = { model: 'demo', max_tokens: 32, messages: [{ role: 'user', content: 'hi' }] };
const RESPONSE = { model: 'demo', input: 'hi' };

describe('the embedded default (open, on loopback, status on)', () => {
  let gateway: BuiltApp;
  let port: number;
  const rebound = () => `rebind.attacker.example:${port}`;

  beforeAll(async () => {
    const config = loadConfig({ env: {} });
    expect(config.auth.open).toBe(true);
    expect(config.status.enabled).toBe(true);
    gateway = buildApp(config, { logger: pino({ level: 'silent' }) });
    await gateway.app.listen({ host: '127.0.0.1', port: 0 });
    gateway.setReady(true);
    port = (gateway.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await gateway.app.close();
  });

  it('refuses a rebound Host on both doors in their envelopes (403), and on /status.json and /metrics', async () => {
    const origin = `http://${rebound()}`;
    const messages = await send(port, '/v1/messages', { host: rebound(), origin }, MESSAGE);
    expect(messages.status).toBe(403);
    expect(messages.json()).toMatchObject({ type: 'error', error: { type: 'permission_error', message: expect.stringMatching(/^Host "rebind\.attacker\.example:\d+" is not allowed/) } });
    const responses = await send(port, '/v1/responses', { host: rebound(), origin }, RESPONSE);
    expect(responses.status).toBe(403);
    expect(responses.json().error).toMatchObject({ message: expect.stringMatching(/^Host "rebind\.attacker\.example:\d+" is not allowed/) });
    const chat = await send(port, '/v1/chat/completions', { host: rebound(), origin }, { model: 'demo', messages: [{ role: 'user', content: 'hi' }] });
    expect(chat.status).toBe(403);
    expect(chat.json().error).toMatchObject({ message: expect.stringMatching(/^Host "rebind\.attacker\.example:\d+" is not allowed/) });
    for (const path of ['/status.json', '/metrics', '/v1/models', '/v1/messages/count_tokens']) {
      const res = path.includes('count') ? await send(port, path, { host: rebound() }, MESSAGE) : await send(port, path, { host: rebound() });
      expect(res.status, path).toBe(403);
      expect(res.body, path).toMatch(/not allowed/);
      expect(res.body, path).not.toMatch(/switchyard_|"deployments"/);
    }
  });

  it('refuses a foreign Origin, Origin: null and Sec-Fetch-Site: cross-site under an allowed Host', async () => {
    const host = `127.0.0.1:${port}`;
    for (const origin of ['http://evil.example', 'https://evil.example', `http://rebind.attacker.example:${port}`, 'http://203.0.113.9', 'null', 'file://']) {
      const res = await send(port, '/v1/messages', { host, origin }, MESSAGE);
      expect(res.status, origin).toBe(403);
      expect(res.json().error.message, origin).toMatch(/^Origin .* is not allowed/);
    }
    const res = await send(port, '/v1/responses', { host, 'sec-fetch-site': 'cross-site' }, RESPONSE);
    expect(res.status).toBe(403);
    expect(res.json().error.message).toMatch(/cross-site/);
    expect((await send(port, '/status.json', { host, origin: 'http://evil.example' })).status).toBe(403);
  });

  it('serves loopback names, IP addresses, loopback origins and same-origin pages', async () => {
    const allowed: Record<string, string>[] = [
      { host: `127.0.0.1:${port}` },
      { host: `localhost:${port}` },
      { host: `LOCALHOST.:${port}` },
      { host: `app.localhost:${port}` },
      { host: `[::1]:${port}` },
      { host: `127.0.0.5:${port}` },
      // An IP address cannot be rebound: a page under it came from that address.
      { host: `192.168.1.20:${port}`, origin: `http://192.168.1.20:${port}` },
      { host: `127.0.0.1:${port}`, origin: 'http://localhost:5173' },
      { host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${port}`, 'sec-fetch-site': 'same-origin' },
      { host: `localhost:${port}`, origin: 'http://[::1]:3000' },
    ];
    for (const headers of allowed) {
      const res = await send(port, '/v1/messages', headers, MESSAGE);
      expect(res.status, JSON.stringify(headers)).toBe(200);
      expect(res.json().type).toBe('message');
    }
    const status = await send(port, '/status.json', { host: `localhost:${port}` });
    expect(status.status).toBe(200);
    expect(status.json().schema).toBe(1);
    expect((await send(port, '/metrics', { host: `127.0.0.1:${port}` })).body).toMatch(/^switchyard_/m);
  });

  it('the official SDKs pass, by 127.0.0.1 and by localhost', async () => {
    for (const base of [`http://127.0.0.1:${port}`, `http://localhost:${port}`]) {
      const anthropic = new Anthropic({ baseURL: base, apiKey: 'unused', maxRetries: 0 });
      const message = await anthropic.messages.create(MESSAGE as Anthropic.MessageCreateParamsNonStreaming);
      expect(message.content[0]).toMatchObject({ type: 'text' });
      const openai = new OpenAI({ baseURL: base + '/v1', apiKey: 'unused', maxRetries: 0 });
      const response = await openai.responses.create(RESPONSE);
      expect(response.status).toBe('completed');
      const streamed: string[] = [];
      for await (const event of await openai.responses.create({ ...RESPONSE, stream: true })) streamed.push(event.type);
      expect(streamed.at(-1)).toBe('response.completed');
    }
  });

  it('a WebSocket upgrade from a foreign page is refused before the upgrade (browsers send Origin, not CORS)', async () => {
    const upgrade = { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' };
    const evil = await send(port, '/v1/responses', { ...upgrade, host: `127.0.0.1:${port}`, origin: 'https://evil.example' });
    expect(evil.status).toBe(403);
    expect(evil.json().error.message).toMatch(/^Origin "https:\/\/evil\.example" is not allowed/);
    expect((await send(port, '/v1/responses', { ...upgrade, host: rebound() })).status).toBe(403);
    // From an allowed page the upgrade goes through (WebSocket mode is on in the embedded default).
    const socket = new WebSocket(`ws://127.0.0.1:${port}/v1/responses`, { origin: 'http://localhost:5173' });
    await new Promise<void>((resolve, reject) => (socket.once('open', () => resolve()), socket.once('error', reject)));
    socket.close();
  });

  it('probes and the page files answer whatever the Host (no data, kubelet sends the pod address)', async () => {
    for (const path of ['/livez', '/healthz', '/readyz', '/', '/status', '/status/status.js']) {
      expect((await send(port, path, { host: rebound() })).status, path).toBe(200);
    }
  });
});

describe('an open gateway in front of a scripted upstream', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });
  const port = () => Number(new URL(h.url).port);

  it('refuses before any work: nothing reaches the upstream, streamed or not', async () => {
    const before = h.upstream.received.length;
    for (const stream of [false, true]) {
      const m = await send(port(), '/v1/messages', { host: 'evil.example' }, { ...MESSAGE, model: MODELS.messages.alias, stream });
      expect(m.status).toBe(403);
      const r = await send(port(), '/v1/responses', { host: `127.0.0.1:${port()}`, origin: 'https://evil.example' }, { ...RESPONSE, model: MODELS.responses.alias, stream });
      expect(r.status).toBe(403);
    }
    expect(h.upstream.received.length).toBe(before);
    // The same requests from an allowed Host do reach it.
    expect((await send(port(), '/v1/messages', { host: `localhost:${port()}` }, { ...MESSAGE, model: MODELS.messages.alias })).status).toBe(200);
    expect(h.upstream.received.length).toBe(before + 1);
  });

  it('server.allowed_hosts adds names and *.suffixes, and a reload applies to the next request', async () => {
    const raw = (allowed: string[]) =>
      resolveConfig(
        {
          server: { host: '127.0.0.1', allowed_hosts: allowed },
          auth: { open: true },
          log: { level: 'silent' },
          providers: { demo: { protocol: 'demo' } },
          models: { demo: { provider: 'demo' } },
        },
        'test',
      );
    const before = h.gateway.ctx.config;
    try {
      h.gateway.reload(raw(['gateway.example.com', '*.corp.example']));
      for (const host of ['gateway.example.com', 'GATEWAY.example.com:8443', 'a.corp.example', 'x.y.corp.example']) {
        expect((await send(port(), '/v1/messages', { host }, MESSAGE)).status, host).toBe(200);
      }
      for (const host of ['corp.example', 'evil-corp.example', 'gateway.example.com.evil.example']) {
        expect((await send(port(), '/v1/messages', { host }, MESSAGE)).status, host).toBe(403);
      }
      expect((await send(port(), '/v1/messages', { host: 'gateway.example.com', origin: 'https://gateway.example.com' }, MESSAGE)).status).toBe(200);
      h.gateway.reload(raw(['*']));
      expect((await send(port(), '/v1/messages', { host: 'anything.example', origin: 'https://evil.example' }, MESSAGE)).status).toBe(200);
      h.gateway.reload(raw([]));
      expect((await send(port(), '/v1/messages', { host: 'gateway.example.com' }, MESSAGE)).status).toBe(403);
    } finally {
      h.gateway.reload(before);
    }
  });
});

describe('a closed gateway', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ apiKey: 'k-caller-123456', config: () => ({ auth: { keys: [{ name: 'alice', key: 'k-caller-123456' }] } }) });
  });
  afterAll(async () => {
    await h.close();
  });

  it('does not Host-check a request with a valid key (the key is the access control)', async () => {
    const port = Number(new URL(h.url).port);
    const res = await send(port, '/v1/messages', { host: 'gateway.example.com', 'x-api-key': 'k-caller-123456' }, { ...MESSAGE, model: MODELS.messages.alias });
    expect(res.status).toBe(200);
    // Without one it is the usual 401.
    expect((await send(port, '/v1/messages', { host: 'gateway.example.com' }, MESSAGE)).status).toBe(401);
  });
});

describe('server.allowed_hosts in the config', () => {
  const base = { auth: { open: true }, providers: {}, models: {} };
  it('is strict: a misspelt key, a port, a scheme or a path is refused, naming the entry', () => {
    expect(() => resolveConfig({ ...base, server: { allowed_host: ['a.example'] } }, 't')).toThrow("server.allowed_host: unknown key; did you mean allowed_hosts?");
    expect(() => resolveConfig({ ...base, server: { allowed_hosts: ['ok.example', 'a.example:8080'] } }, 't')).toThrow(/server\.allowed_hosts\.1: expected a host name/);
    expect(() => resolveConfig({ ...base, server: { allowed_hosts: ['https://a.example'] } }, 't')).toThrow(/server\.allowed_hosts\.0/);
    expect(() => resolveConfig({ ...base, server: { allowed_hosts: ['a.example/x'] } }, 't')).toThrow(/server\.allowed_hosts\.0/);
    expect(() => resolveConfig({ ...base, server: { allowed_hosts: 'a.example' } }, 't')).toThrow(/server\.allowed_hosts/);
    expect(resolveConfig({ ...base, server: { allowed_hosts: ['a.example', '*.b.example', '*', '10.0.0.7', '[fd00::1]'] } }, 't').server.allowedHosts).toHaveLength(5);
    expect(resolveConfig(base, 't').server.allowedHosts).toEqual([]);
  });
});

describe('the metrics listener (metrics.port)', () => {
  it('refuses a rebound Host and a foreign Origin, serves loopback and IP Hosts and allowed names', async () => {
    const server = await startMetricsServer({
      host: '127.0.0.1',
      port: 0,
      contentType: 'text/plain',
      metricsText: async () => 'switchyard_up 1\n',
      onError: () => undefined,
      allowedHosts: ['prometheus-target.internal'],
    });
    try {
      const port = (server.address() as AddressInfo).port;
      const refused = await send(port, '/metrics', { host: `rebind.attacker.example:${port}` });
      expect(refused.status).toBe(403);
      expect(refused.body).toMatch(/^Host .* is not allowed/);
      expect((await send(port, '/metrics', { host: `127.0.0.1:${port}`, origin: 'http://evil.example' })).status).toBe(403);
      for (const host of [`127.0.0.1:${port}`, `10.1.2.3:${port}`, `localhost:${port}`, 'prometheus-target.internal:9464']) {
        const ok = await send(port, '/metrics', { host });
        expect(ok.status, host).toBe(200);
        expect(ok.body).toBe('switchyard_up 1\n');
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
