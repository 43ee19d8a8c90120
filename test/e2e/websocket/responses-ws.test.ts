// Responses over WebSocket with the OpenAI SDK's own client (ResponsesWS, openai 6.x) through the real gateway
// to scripted upstreams: the events are the SSE stream's, one per frame; chaining works from the connection's
// own most recent response (store: false too); the warm-up calls no upstream; failures are error events
// with the connection kept open; a client that leaves aborts the upstream call.
import OpenAI from 'openai';
import { ResponsesWS } from 'openai/resources/beta/responses/ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODELS, startHarness, type Harness, type UpstreamProtocol } from '../../support/gateway-harness.js';

type Event = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/** A ResponsesWS whose events (and SDK errors: `error` events) are queued in arrival order. */
function open(h: Harness): { ws: ResponsesWS; next: () => Promise<Event>; untilTerminal: () => Promise<Event[]>; closed: Promise<number> } {
  const client = new OpenAI({ baseURL: h.url + '/v1', apiKey: 'caller-key', maxRetries: 0 });
  const ws = new ResponsesWS(client);
  const queue: Event[] = [];
  const waiters: ((e: Event) => void)[] = [];
  const push = (e: Event) => {
    const w = waiters.shift();
    if (w) w(e);
    else queue.push(e);
  };
  ws.on('event', (e: Event) => push(e));
  // The SDK raises `error` events as errors too; the event itself is already queued.
  ws.on('error', () => undefined);
  const closed = new Promise<number>((resolve) => ws.on('close', (code: number) => resolve(code)));
  const next = () => (queue.length > 0 ? Promise.resolve(queue.shift()!) : new Promise<Event>((resolve) => waiters.push(resolve)));
  const untilTerminal = async () => {
    const out: Event[] = [];
    for (;;) {
      const e = await next();
      out.push(e);
      if (TERMINAL.has(e.type) || (e.type === 'error' && e.status !== undefined)) return out;
    }
  };
  return { ws, next, untilTerminal, closed };
}

/** The same request over SSE, as its events. */
async function overSse(h: Harness, body: Record<string, unknown>): Promise<Event[]> {
  const res = await fetch(h.url + '/v1/responses', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer caller-key' },
    body: JSON.stringify({ ...body, stream: true }),
  });
  const text = await res.text();
  return text
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)) as Event);
}

/** What can differ between two runs of one request: ids, times. */
function shape(events: Event[]): unknown[] {
  return events.map((e) =>
    JSON.parse(
      JSON.stringify(e, (k, v) => (['id', 'item_id', 'created_at', 'completed_at', 'call_id'].includes(k) && typeof v === 'string' ? '<id>' : ['created_at', 'completed_at'].includes(k) ? 0 : v)),
    ),
  );
}

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const routes: UpstreamProtocol[] = ['messages', 'responses', 'chat', 'gemini'];

describe('ResponsesWS: response.create through each upstream protocol', () => {
  for (const upstream of routes) {
    it(`${upstream}: the events of the SSE stream of the same request, one frame each, in order`, async () => {
      const body = { model: MODELS[upstream].alias, input: 'Say hello', instructions: 'Be brief.' };
      h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Hello there!' }] });
      const sse = await overSse(h, body);
      h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Hello there!' }] });
      const c = open(h);
      c.ws.send({ type: 'response.create', ...body } as never);
      const events = await c.untilTerminal();
      c.ws.close();
      expect(events.map((e) => e.type)).toEqual(sse.map((e) => e.type));
      expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
      expect(shape(events)).toEqual(shape(sse));
      const done = events.at(-1)!;
      expect(done.type).toBe('response.completed');
      expect(done.response.output[0].content[0].text).toBe('Hello there!');
      expect(done.response.model).toBe(MODELS[upstream].alias);
      // The upstream was asked with the model it serves, streamed.
      expect(h.upstream.received.at(-1)!.protocol).toBe(upstream);
    });
  }
});

describe('ResponsesWS: one connection, many turns', () => {
  it('chains with previous_response_id from the connection’s own response, store: false included, and runs a tool loop', async () => {
    const c = open(h);
    const model = MODELS.messages.alias;
    const tools = [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false }];
    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'tool-call', id: 'toolu_01ABC', name: 'get_weather', arguments: '{"city":"Paris"}' }] });
    c.ws.send({ type: 'response.create', model, store: false, tools, input: 'Weather in Paris?' } as never);
    const first = (await c.untilTerminal()).at(-1)!;
    expect(first.type).toBe('response.completed');
    const call = first.response.output.find((o: Event) => o.type === 'function_call');
    expect(call).toMatchObject({ name: 'get_weather', arguments: '{"city":"Paris"}' });

    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Sunny, 21 C.' }] });
    c.ws.send({
      type: 'response.create',
      model,
      store: false,
      tools,
      previous_response_id: first.response.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: '{"sky":"sunny","c":21}' }],
    } as never);
    const second = (await c.untilTerminal()).at(-1)!;
    expect(second.type).toBe('response.completed');
    expect(second.response.output[0].content[0].text).toBe('Sunny, 21 C.');
    // The upstream got the whole history: the question, the call, its result.
    const sent = h.upstream.received.at(-1)!.body as { messages: { role: string; content: unknown }[] };
    expect(JSON.stringify(sent.messages)).toContain('Weather in Paris?');
    expect(JSON.stringify(sent.messages)).toContain('tool_use');
    expect(JSON.stringify(sent.messages)).toContain('sunny');

    // store: false is kept on the connection only: over HTTP (another connection) the id is unknown.
    const res = await h.openai.responses.create({ model, input: 'again', previous_response_id: second.response.id }).catch((e: unknown) => e);
    expect((res as { status?: number }).status).toBe(400);
    c.ws.close();
  });

  it('a warm-up (generate: false) is answered without any upstream call, and the next turn continues from it', async () => {
    const c = open(h);
    const before = h.upstream.received.length;
    c.ws.send({ type: 'response.create', generate: false, instructions: 'Be brief.', input: [{ role: 'user', content: 'My name is Ada.' }] } as never);
    const warm = await c.untilTerminal();
    expect(warm.map((e) => e.type)).toEqual(['response.created', 'response.in_progress', 'response.completed']);
    expect(warm.at(-1)!.response.output).toEqual([]);
    expect(h.upstream.received.length).toBe(before);
    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Hello Ada.' }] });
    c.ws.send({ type: 'response.create', model: MODELS.messages.alias, previous_response_id: warm.at(-1)!.response.id, input: 'Greet me.' } as never);
    const turn = (await c.untilTerminal()).at(-1)!;
    expect(turn.type).toBe('response.completed');
    expect(JSON.stringify(h.upstream.received.at(-1)!.body)).toContain('My name is Ada.');
    c.ws.close();
  });
});

describe('ResponsesWS: failures are error events; the connection stays open', () => {
  it('malformed JSON, an unknown event type, a bad body, an unknown previous_response_id, response.inject', async () => {
    const c = open(h);
    c.ws.sendRaw('{"type": "response.create", ');
    const bad = await c.next();
    expect(bad).toMatchObject({ type: 'error', status: 400, error: { type: 'invalid_request_error' } });
    c.ws.send({ type: 'response.cancel' } as never);
    expect(await c.next()).toMatchObject({ type: 'error', status: 400, code: 'unknown_event_type', error: { code: 'unknown_event_type', param: 'type' } });
    c.ws.send({ type: 'response.create', model: MODELS.messages.alias, input: 'x', temperature: 'hot' } as never);
    expect(await c.next()).toMatchObject({ type: 'error', status: 400, error: { type: 'invalid_request_error', param: 'temperature' } });
    c.ws.send({ type: 'response.create', model: MODELS.messages.alias, input: 'x', previous_response_id: 'resp_nope' } as never);
    expect(await c.next()).toMatchObject({ type: 'error', status: 400, error: { code: 'previous_response_not_found', param: 'previous_response_id' } });
    c.ws.send({ type: 'response.create', model: 'no-such-model', input: 'x' } as never);
    expect(await c.next()).toMatchObject({ type: 'error', status: 404, error: { code: 'model_not_found' } });
    c.ws.send({ type: 'response.inject', response_id: 'resp_x', input: [{ role: 'user', content: 'more' }] } as never);
    expect(await c.next()).toMatchObject({ type: 'response.inject.failed', response_id: 'resp_x', error: { code: 'response_not_found' }, input: [{ role: 'user', content: 'more' }] });
    // Still open: a good request is answered.
    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'ok' }] });
    c.ws.send({ type: 'response.create', model: MODELS.messages.alias, input: 'x' } as never);
    expect((await c.untilTerminal()).at(-1)!.type).toBe('response.completed');
    c.ws.close();
  });

  it('a second response.create while one runs gets OpenAI’s error; the running one completes', async () => {
    const c = open(h);
    h.upstream.enqueue({ kind: 'stall', afterBlocks: [{ type: 'text', text: 'slow ' }], ms: 300 });
    c.ws.send({ type: 'response.create', model: MODELS.messages.alias, input: 'one' } as never);
    const first = await c.next();
    expect(first.type).toBe('response.created');
    c.ws.send({ type: 'response.create', model: MODELS.messages.alias, input: 'two' } as never);
    const events = await c.untilTerminal();
    const refusal = events.find((e) => e.type === 'error');
    expect(refusal).toMatchObject({ status: 400, error: { code: 'conversation_already_has_active_response' } });
    const rest = events.filter((e) => e.type !== 'error');
    expect(rest.length).toBeGreaterThan(0);
    if (!TERMINAL.has(events.at(-1)!.type)) expect(TERMINAL.has((await c.untilTerminal()).at(-1)!.type)).toBe(true);
    c.ws.close();
  });

  it('an upstream failure mid-response: error and response.failed, then the connection serves the next turn', async () => {
    const c = open(h);
    h.upstream.enqueue({ kind: 'fail-mid-stream', blocks: [{ type: 'text', text: 'partial' }], message: 'upstream broke' });
    c.ws.send({ type: 'response.create', model: MODELS.messages.alias, input: 'x' } as never);
    const events = await c.untilTerminal();
    expect(events.map((e) => e.type).slice(-2)).toEqual(['error', 'response.failed']);
    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'fine now' }] });
    c.ws.send({ type: 'response.create', model: MODELS.messages.alias, input: 'x' } as never);
    expect((await c.untilTerminal()).at(-1)!.response.output[0].content[0].text).toBe('fine now');
    c.ws.close();
  });

  it('a client that closes mid-response aborts the upstream call', async () => {
    const c = open(h);
    h.upstream.enqueue({ kind: 'stall', afterBlocks: [{ type: 'text', text: 'never ' }], ms: 5000 });
    c.ws.send({ type: 'response.create', model: MODELS.messages.alias, input: 'x' } as never);
    await c.next();
    await new Promise((r) => setTimeout(r, 100));
    expect(h.upstream.inFlight).toBe(1);
    c.ws.close();
    const t0 = performance.now();
    while (h.upstream.inFlight > 0 && performance.now() - t0 < 3000) await new Promise((r) => setTimeout(r, 20));
    expect(h.upstream.inFlight).toBe(0);
  });
});
