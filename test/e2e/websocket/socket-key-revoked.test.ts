// A key revoked while its WebSocket is open is never served again on it:
//   - a config reload (the real process, its file rewritten and SIGHUP sent): an idle connection of a revoked
//     key gets OpenAI's 401 `error` event (invalid_api_key) and a 1008 close at once; one with a response
//     running finishes that response (admitted under the key, as an HTTP request in flight is), then gets the
//     same event and close; a connection of a key the reload kept goes on; the revoked key's next upgrade is
//     a plain HTTP 401; the upstream sees nothing more from the revoked keys;
//   - a runtime key revoked through the admin API: the next response.create on its socket is refused the same
//     way before anything goes upstream, and an idle socket is closed by the next ping's check.
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, MODELS } from '../../support/gateway-harness.js';
import { startGatewayProcess, waitForOutput, type GatewayProcess } from '../../support/gateway-process.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../../support/scripted-upstream/index.js';
import { metricValue, openSocket, type SocketEvent } from '../../support/ws-client.js';

const ALICE = 'sk-sy-ws-revoke-alice-000001';
const BOB = 'sk-sy-ws-revoke-bob-00000002';
const CAROL = 'sk-sy-ws-revoke-carol-000003';
const ADMIN = 'sk-sy-ws-revoke-admin-00004';

/** OpenAI's socket error event for a key it does not accept. */
const REFUSED = { type: 'error', status: 401, error: { type: 'invalid_request_error', code: 'invalid_api_key' } };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

const create = (input: string) => ({ type: 'response.create', model: 'm', input, store: false });

describe('a key revoked by a config reload (SIGHUP) while its socket is open', () => {
  let upstream: ScriptedUpstream;
  let gw: GatewayProcess;
  const config = (keys: { name: string; key: string }[]) => ({
    log: { level: 'info' },
    auth: { keys, admin_keys: [{ name: 'ops', key: ADMIN }] },
    providers: { up: { protocol: 'messages', base_url: upstream.url, api_key: 'upstream-key', retry: { attempts: 1 } } },
    models: { m: { provider: 'up', model: 'claude-upstream-1' } },
  });
  beforeAll(async () => {
    upstream = await startScriptedUpstream();
    const keys = [
      { name: 'alice', key: ALICE },
      { name: 'bob', key: BOB },
      { name: 'carol', key: CAROL },
    ];
    gw = await startGatewayProcess(config(keys));
  }, 30_000);
  afterAll(async () => {
    await gw?.stop();
    await upstream?.close();
  });

  it('closes the revoked keys’ sockets (an idle one at once, a busy one after its response) and keeps the others', async () => {
    const alice = await openSocket(gw.url, ALICE);
    const bob = await openSocket(gw.url, BOB);
    const carol = await openSocket(gw.url, CAROL);
    alice.send(create('first'));
    expect((await alice.untilTerminal()).at(-1)!.type).toBe('response.completed');

    // Carol's response is running (the upstream holds it) when the reload lands.
    upstream.enqueue({ kind: 'stall', afterBlocks: [{ type: 'text', text: 'slow ' }], ms: 1500 });
    carol.send(create('long one'));
    await until('the upstream to get carol’s request', () => upstream.received.length === 2);

    writeFileSync(gw.configFile, JSON.stringify({ ...config([{ name: 'bob', key: BOB }]), server: { host: '127.0.0.1', port: gw.port } }));
    process.kill(gw.pid, 'SIGHUP');
    await waitForOutput(gw, 'configuration reloaded');

    // Alice, idle: told at once, in OpenAI's shape, and closed with a policy-violation close.
    expect(await alice.next(3000)).toEqual({
      type: 'error',
      status: 401,
      code: 'invalid_api_key',
      message: 'invalid API key',
      param: null,
      error: { message: 'invalid API key', type: 'invalid_request_error', param: null, code: 'invalid_api_key' },
    });
    expect(await alice.closed).toMatchObject({ code: 1008, reason: 'API key no longer accepted' });

    // Carol: the running response completes, then the same event and close.
    const events = await carol.untilTerminal(8000);
    expect(events.at(-1)!.type).toBe('response.completed');
    expect(events.filter((e: SocketEvent) => e.type === 'error')).toEqual([]);
    expect(await carol.next(3000)).toMatchObject(REFUSED);
    expect((await carol.closed).code).toBe(1008);

    // Bob's key stayed: his connection is still served.
    bob.send(create('still here'));
    expect((await bob.untilTerminal()).at(-1)!.type).toBe('response.completed');
    expect(bob.ws.readyState).toBe(bob.ws.OPEN);

    // A revoked key cannot open a new socket: the upgrade is a plain 401.
    await expect(openSocket(gw.url, ALICE)).rejects.toThrow('upgrade refused: 401');
    // The upstream got alice's, carol's and bob's one request each, nothing after the reload from the revoked keys.
    expect(upstream.received.map((r) => JSON.stringify(r.body).match(/first|long one|still here/)?.[0])).toEqual(['first', 'long one', 'still here']);

    const metrics = await (await fetch(gw.url + '/metrics', { headers: { authorization: `Bearer ${ADMIN}` } })).text();
    expect(metricValue(metrics, 'switchyard_websocket_closes_total', { front_door: 'responses', reason: 'key_refused' })).toBe(2);
    bob.ws.close();
  }, 30_000);
});

async function runtimeKeysGateway(pingIntervalMs: number) {
  const h = await startHarness({
    config: () => ({ auth: { keys: [{ name: 'config-key', key: BOB }], admin_keys: [{ name: 'ops', key: ADMIN }] }, websocket: { ping_interval_ms: pingIntervalMs } }),
  });
  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(h.url + path, {
      method,
      headers: { authorization: `Bearer ${ADMIN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  return Object.assign(h, { admin });
}

describe('a runtime key revoked through the admin API while its socket is open', () => {
  it('the next response.create is refused before anything goes upstream, and the socket closed', async () => {
    // Pings every 60 s: only the response.create's own check can see the revocation here.
    const h = await runtimeKeysGateway(60_000);
    try {
      const made = await h.admin('POST', '/admin/keys', { name: 'ci-job' });
      expect(made.status).toBe(201);
      const c = await openSocket(h.url, made.body.key);
      c.send({ ...create('before'), model: MODELS.messages.alias });
      expect((await c.untilTerminal()).at(-1)!.type).toBe('response.completed');
      const sent = h.upstream.received.length;

      expect((await h.admin('DELETE', '/admin/keys/ci-job')).status).toBe(204);
      c.send({ ...create('after'), model: MODELS.messages.alias });
      expect(await c.next(3000)).toMatchObject(REFUSED);
      expect((await c.closed).code).toBe(1008);
      expect(h.upstream.received.length).toBe(sent);
    } finally {
      await h.close();
    }
  });

  it('an idle socket of a revoked key is closed by the next ping’s check', async () => {
    const h = await runtimeKeysGateway(300);
    try {
      const made = await h.admin('POST', '/admin/keys', { name: 'idle-job' });
      const c = await openSocket(h.url, made.body.key);
      await sleep(400);
      expect(c.ws.readyState).toBe(c.ws.OPEN);
      const t0 = performance.now();
      expect((await h.admin('DELETE', '/admin/keys/idle-job')).status).toBe(204);
      expect(await c.next(3000)).toMatchObject(REFUSED);
      const { code, at } = await c.closed;
      expect(code).toBe(1008);
      // Within about one ping interval (300 ms), not at the idle timeout.
      expect(at - t0).toBeLessThan(2000);
      expect(h.upstream.received).toEqual([]);
    } finally {
      await h.close();
    }
  });
});
