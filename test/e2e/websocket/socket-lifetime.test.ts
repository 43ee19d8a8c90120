// A WebSocket connection's lifetime on the real gateway, with a plain `ws` client (the frames and close codes
// themselves): the connection limit (OpenAI's websocket_connection_limit_reached), the idle timeout, ping/pong,
// the frame size cap (1009), backpressure from a client that does not read, and a client that leaves
// mid-response (the scripted upstream sees the gateway hang up on it). Each close is counted by reason.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODELS, startHarness, type Harness } from '../../support/gateway-harness.js';
import { metricValue, openSocket } from '../../support/ws-client.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const model = MODELS.messages.alias;

async function closes(h: Harness, reason: string): Promise<number> {
  const text = await (await fetch(h.url + '/metrics')).text();
  return metricValue(text, 'switchyard_websocket_closes_total', { front_door: 'responses', reason });
}

describe('the connection limit (connection_limit_ms)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ config: () => ({ metrics: { public: true }, websocket: { connection_limit_ms: 1000 } }) });
  });
  afterAll(() => h.close());

  it('an idle connection gets OpenAI’s websocket_connection_limit_reached error event, then a 1000 close', async () => {
    const c = await openSocket(h.url);
    const t0 = performance.now();
    const e = await c.next(5000);
    expect(e).toMatchObject({ type: 'error', status: 400, error: { code: 'websocket_connection_limit_reached', type: 'invalid_request_error' } });
    const { code, at } = await c.closed;
    expect(code).toBe(1000);
    expect(at - t0).toBeGreaterThan(700);
    expect(await closes(h, 'connection_limit')).toBeGreaterThanOrEqual(1);
  });

  it('a response running at the limit completes first; the error event and the close follow it', async () => {
    const c = await openSocket(h.url);
    h.upstream.enqueue({ kind: 'stall', afterBlocks: [{ type: 'text', text: 'slow ' }], ms: 1500 });
    c.send({ type: 'response.create', model, input: 'x' });
    const events = await c.untilTerminal(8000);
    expect(events.at(-1)!.type).toBe('response.completed');
    expect(events.find((e) => e.type === 'error')).toBeUndefined();
    expect(await c.next(3000)).toMatchObject({ type: 'error', error: { code: 'websocket_connection_limit_reached' } });
    expect((await c.closed).code).toBe(1000);
  });
});

describe('the idle timeout (idle_timeout_ms)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ config: () => ({ metrics: { public: true }, websocket: { idle_timeout_ms: 1000 } }) });
  });
  afterAll(() => h.close());

  it('closes a connection with no response running and no client event (1000), not earlier', async () => {
    const c = await openSocket(h.url);
    const t0 = performance.now();
    // A client event restarts the count.
    await sleep(600);
    c.send({ type: 'response.processed' });
    const { code, reason, at } = await c.closed;
    expect(code).toBe(1000);
    expect(reason).toBe('idle timeout');
    expect(at - t0).toBeGreaterThan(1400);
    expect(await closes(h, 'idle')).toBeGreaterThanOrEqual(1);
  });

  it('never while a response runs: a 1.8 s response outlives a 1 s idle timeout', async () => {
    const c = await openSocket(h.url);
    h.upstream.enqueue({ kind: 'stall', afterBlocks: [{ type: 'text', text: 'slow ' }], ms: 1800 });
    c.send({ type: 'response.create', model, input: 'x' });
    const events = await c.untilTerminal(8000);
    expect(events.at(-1)!.type).toBe('response.completed');
    const t1 = performance.now();
    const { code, at } = await c.closed;
    expect(code).toBe(1000);
    // The count starts again once the response ended.
    expect(at - t1).toBeGreaterThan(700);
  });
});

describe('ping/pong (ping_interval_ms)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ config: () => ({ metrics: { public: true }, websocket: { ping_interval_ms: 150 } }) });
  });
  afterAll(() => h.close());

  it('pings every connection; one that answers stays open', async () => {
    const c = await openSocket(h.url);
    let pings = 0;
    c.ws.on('ping', () => pings++);
    await sleep(800);
    expect(pings).toBeGreaterThanOrEqual(3);
    expect(c.ws.readyState).toBe(c.ws.OPEN);
    c.ws.close();
  });

  it('drops a connection that stopped answering pings', async () => {
    const before = await closes(h, 'ping_timeout');
    const c = await openSocket(h.url, 'caller-key', { autoPong: false });
    const t0 = performance.now();
    const { code, at } = await c.closed;
    // Terminated, not closed: no close frame (1006 at the client).
    expect(code).toBe(1006);
    expect(at - t0).toBeLessThan(2000);
    expect(await closes(h, 'ping_timeout')).toBe(before + 1);
  });
});

describe('the frame size cap (server.body_limit_bytes)', () => {
  let h: Harness;
  const limit = 64 * 1024;
  beforeAll(async () => {
    h = await startHarness({ config: () => ({ metrics: { public: true }, server: { host: '127.0.0.1', port: 0, body_limit_bytes: limit } }) });
  });
  afterAll(() => h.close());

  it('a client event as large as a request body may be is served', async () => {
    const c = await openSocket(h.url);
    const frame = JSON.stringify({ type: 'response.create', model, input: '' });
    const input = 'a'.repeat(limit - frame.length);
    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'read it' }] });
    c.send({ type: 'response.create', model, input });
    expect((await c.untilTerminal()).at(-1)!.type).toBe('response.completed');
    expect(JSON.stringify(h.upstream.received.at(-1)!.body)).toContain(input);
    c.ws.close();
  });

  it('one byte larger closes the connection with 1009 (Message Too Big), before any upstream call', async () => {
    const c = await openSocket(h.url);
    const before = h.upstream.received.length;
    const frame = JSON.stringify({ type: 'response.create', model, input: '' });
    c.send({ type: 'response.create', model, input: 'a'.repeat(limit - frame.length + 1) });
    expect((await c.closed).code).toBe(1009);
    expect(h.upstream.received.length).toBe(before);
    expect(await closes(h, 'too_large')).toBe(1);
  });
});

describe('a client that does not read', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('never makes the gateway buffer the answer: the upstream read pauses until the client reads again', async () => {
    // 16 MB of answer in 400 blocks: far past what the kernel's socket buffers hold between the three parties.
    const block = 'x'.repeat(40_000);
    const blocks = Array.from({ length: 400 }, () => ({ type: 'text' as const, text: block }));
    h.upstream.enqueue({ kind: 'reply', blocks });
    const c = await openSocket(h.url);
    c.send({ type: 'response.create', model, input: 'long answer' });
    c.ws.pause();
    const conn = [...h.gateway.ctx.sockets][0] as unknown as { socket: { writableLength: number } };
    let most = 0;
    for (let i = 0; i < 30; i++) {
      await sleep(50);
      most = Math.max(most, conn.socket.writableLength);
    }
    // The gateway holds at most about a frame beyond its socket's high-water mark, never the answer.
    expect(most).toBeLessThan(2 * 1024 * 1024);
    // And the upstream could not finish: the gateway stopped reading it.
    expect(h.upstream.inFlight).toBe(1);
    c.ws.resume();
    const events = await c.untilTerminal(60_000);
    const done = events.at(-1)!;
    expect(done.type).toBe('response.completed');
    const text = (done.response.output as { content?: { text: string }[] }[]).flatMap((o) => o.content ?? []).map((p) => p.text).join('');
    expect(text.length).toBe(block.length * blocks.length);
    expect(h.upstream.inFlight).toBe(0);
    c.ws.close();
  }, 90_000);
});

describe('a client that leaves mid-response', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ config: () => ({ metrics: { public: true } }) });
  });
  afterAll(() => h.close());

  it('aborts the upstream call: the scripted upstream sees the gateway hang up before its reply ended', async () => {
    const c = await openSocket(h.url);
    h.upstream.enqueue({ kind: 'stall', afterBlocks: [{ type: 'text', text: 'never ' }], ms: 10_000 });
    c.send({ type: 'response.create', model, input: 'x' });
    expect((await c.next()).type).toBe('response.created');
    await sleep(100);
    expect(h.upstream.inFlight).toBe(1);
    const aborted = h.upstream.aborted;
    c.ws.close();
    const t0 = performance.now();
    while (h.upstream.aborted === aborted && performance.now() - t0 < 3000) await sleep(20);
    expect(h.upstream.aborted).toBe(aborted + 1);
    // Well before the stall's 10 s: the abort, not the reply's end.
    expect(performance.now() - t0).toBeLessThan(3000);
    expect(await closes(h, 'client')).toBeGreaterThanOrEqual(1);
    const text = await (await fetch(h.url + '/metrics')).text();
    // The response is counted once, as a client abort over the socket.
    expect(text).toMatch(/switchyard_requests_total\{[^}]*front_door="responses"[^}]*transport="websocket"\} 1/);
  });
});
