// The drain (src/http/drain.ts) for WebSocket connections: a running response finishes, then the connection
// closes with 1001 going-away (the client reconnects to another instance); an idle connection closes at the
// stop; an upgrade that arrives past the stop is refused 503 as HTTP; a response that outlives the grace ends
// with OpenAI's error + response.failed before the 1001. In process, and once with a real SIGTERM.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drainAndClose } from '../../../src/http/drain.js';
import { startGatewayProcess } from '../../support/gateway-process.js';
import { MODELS, startHarness, type Harness } from '../../support/gateway-harness.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../../support/scripted-upstream/index.js';
import { metricValue, openSocket } from '../../support/ws-client.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const model = MODELS.messages.alias;

/** A TCP connection that has sent all of an upgrade request but its last line break: not idle, not yet routed. */
function halfSentUpgrade(url: string): Promise<{ finish: () => Promise<string> }> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const s = connect(Number(port), '127.0.0.1', () => {
      s.write(
        'GET /v1/responses HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer caller-key\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
          'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n',
      );
      let answer = '';
      s.setEncoding('utf8');
      s.on('data', (c: string) => (answer += c));
      const ended = new Promise<string>((done) => s.on('close', () => done(answer)));
      resolve({
        finish: () => {
          s.write('\r\n');
          return ended;
        },
      });
    });
    s.on('error', reject);
  });
}

describe('drain in process', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ config: () => ({ metrics: { public: true } }) });
  });
  afterAll(() => h.close());

  it('the running response completes, then 1001; idle connections close at the stop; a late upgrade is refused 503', async () => {
    const { app, ctx } = h.gateway;
    const busy = await openSocket(h.url);
    const idle = await openSocket(h.url);
    h.upstream.enqueue({ kind: 'stall', afterBlocks: [{ type: 'text', text: 'still ' }], ms: 1500 });
    busy.send({ type: 'response.create', model, input: 'x' });
    expect((await busy.next()).type).toBe('response.created');
    const late = await halfSentUpgrade(h.url);

    const t0 = performance.now();
    const drained = drainAndClose(app, ctx, { drainDelayMs: 400, graceMs: 5000, reason: 'test' });
    // The delay: not ready, and a new connection is still taken (the load balancer is moving away).
    expect((await fetch(h.url + '/readyz')).status).toBe(503);
    const during = await openSocket(h.url);

    // The stop: idle connections go away at once, with 1001.
    const [idleClose, duringClose] = await Promise.all([idle.closed, during.closed]);
    expect(idleClose).toMatchObject({ code: 1001, reason: 'server shutting down' });
    expect(duringClose.code).toBe(1001);
    expect(idleClose.at - t0).toBeGreaterThan(300);
    // Past the stop: no new connection, and an upgrade already on the wire gets a 503 in OpenAI's envelope.
    await expect(openSocket(h.url)).rejects.toThrow();
    const refusal = await late.finish();
    expect(refusal).toMatch(/^HTTP\/1\.1 503 /);
    expect(JSON.parse(refusal.slice(refusal.indexOf('\r\n\r\n') + 4))).toMatchObject({ error: { type: 'server_error', message: expect.stringContaining('shutting down') } });

    // The running response: whole, then the going-away close.
    const events = await busy.untilTerminal(8000);
    expect(events.at(-1)!.type).toBe('response.completed');
    expect(events.find((e) => e.type === 'error')).toBeUndefined();
    expect((await busy.closed).code).toBe(1001);
    const outcome = await drained;
    expect(outcome.cut.responses).toBe(0);
    const metrics = await ctx.obs.metricsText();
    expect(metricValue(metrics, 'switchyard_websocket_closes_total', { front_door: 'responses', reason: 'drain' })).toBe(3);
    expect(metricValue(metrics, 'switchyard_websocket_connections', { front_door: 'responses' })).toBe(0);
  }, 20_000);
});

describe('drain in process, past the grace', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('a response still running at the deadline ends with the retryable error and response.failed, then 1001', async () => {
    const c = await openSocket(h.url);
    h.upstream.enqueue({ kind: 'stall', afterBlocks: [{ type: 'text', text: 'begun ' }], ms: 20_000 });
    c.send({ type: 'response.create', model, input: 'x' });
    expect((await c.next()).type).toBe('response.created');
    const aborted = h.upstream.aborted;
    const outcome = await drainAndClose(h.gateway.app, h.gateway.ctx, { drainDelayMs: 0, graceMs: 500, reason: 'test' });
    expect(outcome.cut.responses).toBe(1);
    const events = await c.untilTerminal(5000);
    expect(events.map((e) => e.type).slice(-2)).toEqual(['error', 'response.failed']);
    expect(events.at(-2)).toMatchObject({ error: { code: 'server_error', message: 'the gateway instance is shutting down; retry the request' } });
    expect((await c.closed).code).toBe(1001);
    expect(h.upstream.aborted).toBe(aborted + 1);
  }, 20_000);
});

describe('SIGTERM to a gateway process', () => {
  let upstream: ScriptedUpstream;
  beforeAll(async () => {
    upstream = await startScriptedUpstream();
  });
  afterAll(() => upstream.close());

  it('the response in flight over the socket completes, the socket closes 1001, the process exits 0', async () => {
    const g = await startGatewayProcess({
      server: { drain_delay_ms: 300, shutdown_grace_ms: 5000 },
      providers: { up: { protocol: 'messages', base_url: upstream.url, api_key: 'u' } },
      models: { m: { provider: 'up', model: 'claude-up' } },
    });
    let exit: Promise<number | null> | undefined;
    try {
      const c = await openSocket(g.url, 'k');
      upstream.enqueue({ kind: 'stall', afterBlocks: [{ type: 'text', text: 'part one, ' }], ms: 1500 });
      c.send({ type: 'response.create', model: 'm', input: 'x' });
      expect((await c.next()).type).toBe('response.created');
      exit = g.stop(15_000);
      const events = await c.untilTerminal(10_000);
      expect(events.at(-1)!.type).toBe('response.completed');
      expect(events.at(-1)!.response.output[0].content[0].text).toContain('part one');
      expect((await c.closed).code).toBe(1001);
      expect(await exit).toBe(0);
    } finally {
      if (!exit) await g.stop();
    }
  }, 60_000);
});
