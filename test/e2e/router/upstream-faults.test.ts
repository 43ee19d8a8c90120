// Broken upstreams, as each door's caller sees them on both lanes: an upstream 503 keeps its meaning
// (Messages 529 overloaded_error, Responses 503), a pass-through stream frame that is not JSON ends the
// stream with the protocol's error frames instead of reaching the caller, and an upstream failure
// frame is classified alike by the pass-through relay and the translation lane (invalid_prompt is not
// retried, conflict_error is a 409 worth a retry, the max_tokens overflow wording is an overflow).
//
// The scripted upstream cannot send malformed or arbitrary failure frames, so those cases use a raw
// SSE server below that also records what the gateway sent it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Harness } from '../../support/gateway-harness.js';
import { parseSse, postJson, type SseEvent } from '../../unit/support/raw-http.js';
import { generations, provider, routerHarness, user } from './support.js';

interface RawReply {
  status: number;
  contentType: string;
  /** Written one by one, each flushed before the next (a Buffer may end inside a UTF-8 sequence). */
  chunks: (string | Buffer)[];
}

interface RawUpstream {
  url: string;
  /** Paths of the requests received, in order. */
  received: string[];
  enqueue(...replies: RawReply[]): void;
  /** Forget the requests seen and the replies not yet used. */
  reset(): void;
  /** Answers when the queue is empty. */
  fallback: RawReply;
  close(): Promise<void>;
}

async function startRawUpstream(): Promise<RawUpstream> {
  const queue: RawReply[] = [];
  const state: RawUpstream = {
    url: '',
    received: [],
    enqueue: (...replies) => void queue.push(...replies),
    reset: () => {
      queue.length = 0;
      state.received.length = 0;
    },
    fallback: { status: 500, contentType: 'application/json', chunks: ['{"error":{"type":"api_error","message":"nothing scripted"}}'] },
    close: () => Promise.resolve(),
  };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', async () => {
      state.received.push(req.url ?? '');
      const reply = queue.shift() ?? state.fallback;
      res.writeHead(reply.status, { 'content-type': reply.contentType });
      for (const chunk of reply.chunks) {
        res.write(chunk);
        await new Promise((r) => setTimeout(r, 2));
      }
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}

const sse = (...frames: (string | Buffer)[]): RawReply => ({ status: 200, contentType: 'text/event-stream', chunks: frames });
const frame = (event: string, data: unknown) => `event: ${event}\ndata: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

const messageStart = frame('message_start', {
  type: 'message_start',
  message: { id: 'msg_up', type: 'message', role: 'assistant', model: 'claude-raw', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 3, output_tokens: 1 } },
});
const textStart = frame('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
const textDelta = (t: string) => frame('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: t } });
const messagesError = (type: string, message: string) => frame('error', { type: 'error', error: { type, message } });

const responseObj = { id: 'resp_up', object: 'response', created_at: 1, model: 'gpt-raw', status: 'in_progress', output: [] };
const created = frame('response.created', { type: 'response.created', sequence_number: 0, response: responseObj });
const outputDelta = (t: string) =>
  frame('response.output_text.delta', { type: 'response.output_text.delta', sequence_number: 1, item_id: 'msg_1', output_index: 0, content_index: 0, delta: t });
const responseFailed = (code: string, message: string) =>
  frame('response.failed', { type: 'response.failed', sequence_number: 0, response: { ...responseObj, status: 'failed', error: { code, message } } });

const events = (list: SseEvent[]) => list.map((e) => e.event);

describe('upstream faults', () => {
  let h: Harness;
  let raw: RawUpstream;

  beforeAll(async () => {
    raw = await startRawUpstream();
    const twice = { retry: { attempts: 2, backoff_ms: 5, max_backoff_ms: 10, budget_ms: 5000 } };
    h = await routerHarness((url) => ({
      providers: {
        'm-scripted': provider('messages', url),
        'r-scripted': provider('responses', url),
        'm-raw': provider('messages', raw.url),
        'r-raw': provider('responses', raw.url),
        'm-raw-twice': provider('messages', raw.url, twice),
        'r-raw-twice': provider('responses', raw.url, twice),
      },
      models: {
        'scripted-m': { provider: 'm-scripted', model: 'claude-scripted' },
        'scripted-r': { provider: 'r-scripted', model: 'gpt-scripted' },
        'raw-m': { provider: 'm-raw', model: 'claude-raw' },
        'raw-r': { provider: 'r-raw', model: 'gpt-raw' },
        'raw-m-twice': { provider: 'm-raw-twice', model: 'claude-raw' },
        'raw-r-twice': { provider: 'r-raw-twice', model: 'gpt-raw' },
      },
    }));
  });
  afterAll(async () => {
    await h.close();
    await raw.close();
  });
  beforeEach(() => {
    h.upstream.received.length = 0;
    raw.reset();
  });

  describe('an upstream HTTP 503 keeps its meaning', () => {
    it.each([
      ['pass-through', 'scripted-m'],
      ['translation', 'scripted-r'],
    ])('Messages door, %s lane: 529 overloaded_error', async (_lane, model) => {
      h.upstream.enqueue({ kind: 'http-error', status: 503 });
      const res = await postJson(`${h.url}/v1/messages`, { model, max_tokens: 20, messages: [user('hi')] });
      expect(res.status).toBe(529);
      expect(await res.json()).toMatchObject({ type: 'error', error: { type: 'overloaded_error' } });
      expect(generations(h)).toHaveLength(1);
    });

    it.each([
      ['pass-through', 'scripted-r'],
      ['translation', 'scripted-m'],
    ])('Responses door, %s lane: 503 server_is_overloaded', async (_lane, model) => {
      h.upstream.enqueue({ kind: 'http-error', status: 503 });
      const res = await postJson(`${h.url}/v1/responses`, { model, input: 'hi', store: false });
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ error: { type: 'server_error', code: 'server_is_overloaded' } });
      expect(generations(h)).toHaveLength(1);
    });

    it('through the official SDKs as well', async () => {
      h.upstream.enqueue({ kind: 'http-error', status: 503 });
      await expect(h.anthropic.messages.create({ model: 'scripted-m', max_tokens: 20, messages: [user('hi')] })).rejects.toMatchObject({
        status: 529,
        error: { error: { type: 'overloaded_error' } },
      });
      h.upstream.enqueue({ kind: 'http-error', status: 503 });
      await expect(h.openai.responses.create({ model: 'scripted-m', input: 'hi', store: false })).rejects.toMatchObject({ status: 503 });
    });
  });

  describe('a pass-through frame that is not JSON', () => {
    it('Messages: the caller gets the frames before it, then an error event, and the stream closes', async () => {
      raw.enqueue(sse(messageStart, textStart, textDelta('Hel'), 'event: content_block_delta\ndata: {"type":"content_block_delta","ind\n\n', textDelta('lo')));
      const before = await requestsCounter(h, 'messages', 'api_error');
      const res = await postJson(`${h.url}/v1/messages`, { model: 'raw-m', max_tokens: 20, stream: true, messages: [user('hi')] });
      expect(res.status).toBe(200);
      const body = await res.text();
      const list = parseSse(body);
      expect(events(list)).toEqual(['message_start', 'content_block_start', 'content_block_delta', 'error']);
      expect(JSON.parse(list[3]!.data)).toMatchObject({ type: 'error', error: { type: 'api_error', message: expect.stringContaining('not JSON') } });
      expect(body).not.toContain('"ind\n');
      expect(body).not.toContain('"lo"');
      expect(await requestsCounter(h, 'messages', 'api_error')).toBe(before + 1);
    });

    it('Responses: the caller gets error + response.failed, with the model it asked for', async () => {
      raw.enqueue(sse(created, outputDelta('par'), 'event: response.output_text.delta\ndata: <html>bad gateway</html>\n\n', outputDelta('tial')));
      const before = await requestsCounter(h, 'responses', 'api_error');
      const res = await postJson(`${h.url}/v1/responses`, { model: 'raw-r', input: 'hi', stream: true, store: false });
      expect(res.status).toBe(200);
      const list = parseSse(await res.text());
      expect(events(list)).toEqual(['response.created', 'response.output_text.delta', 'error', 'response.failed']);
      expect(JSON.parse(list[2]!.data)).toMatchObject({ type: 'error', code: 'server_error' });
      expect(JSON.parse(list[3]!.data).response).toMatchObject({ status: 'failed', model: 'raw-r', error: { code: 'server_error' } });
      // Named in the error message (as the translation lane does), never relayed as a frame.
      expect(list.some((e) => e.data.startsWith('<html>'))).toBe(false);
      expect(await requestsCounter(h, 'responses', 'api_error')).toBe(before + 1);
    });

    it.each([
      ['messages', '/v1/messages', 'raw-m-twice', { max_tokens: 20, messages: [user('hi')] }],
      ['responses', '/v1/responses', 'raw-r-twice', { input: 'hi', store: false }],
    ] as const)('%s: as the first frame it fails the attempt, which is retried', async (_p, path, model, body) => {
      const garbage = sse('data: upstream exploded\n\n');
      raw.enqueue(garbage, garbage);
      const res = await postJson(`${h.url}${path}`, { model, stream: true, ...body });
      expect(res.status).toBe(500);
      expect(await res.text()).toContain('not JSON');
      expect(raw.received).toHaveLength(2);
    });
  });

  describe('failure frames: the pass-through relay and the translation lane agree', () => {
    it.each([
      ['pass-through', '/v1/responses', { input: 'hi' }],
      ['translation', '/v1/messages', { max_tokens: 20, messages: [user('hi')] }],
    ] as const)('Responses upstream invalid_prompt, %s lane: a 400, not retried', async (_lane, path, body) => {
      const failed = sse(responseFailed('invalid_prompt', 'Invalid prompt: flagged'));
      raw.enqueue(failed, failed);
      const res = await postJson(`${h.url}${path}`, { model: 'raw-r-twice', stream: true, ...body });
      expect(res.status).toBe(400);
      expect(await res.text()).toContain('Invalid prompt: flagged');
      expect(raw.received).toHaveLength(1);
    });

    it.each([
      ['pass-through', '/v1/messages', { max_tokens: 20, messages: [user('hi')] }, { type: 'error', error: { type: 'conflict_error' } }],
      ['translation', '/v1/responses', { input: 'hi' }, { error: { code: 'conflict' } }],
    ] as const)('Messages upstream conflict_error, %s lane: retried, then a 409', async (_lane, path, body, envelope) => {
      const conflict = sse(messagesError('conflict_error', 'concurrent edit'));
      raw.enqueue(conflict, conflict);
      const res = await postJson(`${h.url}${path}`, { model: 'raw-m-twice', stream: true, ...body });
      expect(res.status).toBe(409);
      expect(await res.json()).toMatchObject(envelope);
      expect(raw.received).toHaveLength(2);
    });

    it.each([
      ['pass-through', '/v1/messages', { max_tokens: 20, messages: [user('hi')] }],
      ['translation', '/v1/responses', { input: 'hi' }],
    ] as const)('Messages upstream overflow worded "input length and max_tokens exceed", %s lane: an overflow 400, not retried', async (_lane, path, body) => {
      const overflow = sse(messagesError('invalid_request_error', 'input length and `max_tokens` exceed context limit: 190000 + 20000 > 200000'));
      raw.enqueue(overflow, overflow);
      const res = await postJson(`${h.url}${path}`, { model: 'raw-m-twice', stream: true, ...body });
      expect(res.status).toBe(400);
      expect(await res.text()).toContain('exceed context limit');
      expect(raw.received).toHaveLength(1);
    });
  });
});

describe('a translated stream whose UTF-8 characters are split across upstream chunks', () => {
  let h: Harness;
  let raw: RawUpstream;

  beforeAll(async () => {
    raw = await startRawUpstream();
    h = await routerHarness(() => ({ providers: { 'r-raw': provider('responses', raw.url) }, models: { 'raw-r': { provider: 'r-raw', model: 'gpt-raw' } } }));
  });
  afterAll(async () => {
    await h.close();
    await raw.close();
  });

  it('reaches the Messages caller intact', async () => {
    const text = 'héllo 🚀 wörld — ✓';
    const completed = frame('response.completed', {
      type: 'response.completed',
      sequence_number: 2,
      response: {
        ...responseObj,
        status: 'completed',
        output: [{ type: 'message', id: 'msg_1', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] }],
        usage: { input_tokens: 3, output_tokens: 6, total_tokens: 9 },
      },
    });
    const bytes = Buffer.from(created + outputDelta(text) + completed, 'utf8');
    // Cut inside é (2 bytes), inside 🚀 (4 bytes) and inside ✓ (3 bytes): every chunk but the last ends mid-character.
    const cuts = [bytes.indexOf('é') + 1, bytes.indexOf('🚀') + 2, bytes.indexOf('✓') + 1];
    const chunks = [0, ...cuts].map((at, i) => bytes.subarray(at, cuts[i] ?? bytes.length));
    for (const chunk of chunks.slice(0, -1)) expect(() => new TextDecoder('utf-8', { fatal: true }).decode(chunk)).toThrow();
    raw.enqueue(sse(...chunks));
    const res = await postJson(`${h.url}/v1/messages`, { model: 'raw-r', stream: true, max_tokens: 20, messages: [user('hi')] });
    expect(res.status).toBe(200);
    const frames = parseSse(await res.text());
    const deltas = frames.filter((e) => e.event === 'content_block_delta').map((e) => (JSON.parse(e.data) as { delta: { text: string } }).delta.text);
    expect(deltas.join('')).toBe(text);
    expect(events(frames).at(-1)).toBe('message_stop');
  });
});

/** The requests_total count for a door's pass-through lane, 2xx, with the given error kind. */
async function requestsCounter(h: Harness, door: string, errorType: string): Promise<number> {
  const text = await (await fetch(`${h.url}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!/requests_total\{/.test(line)) continue;
    if (line.includes(`front_door="${door}"`) && line.includes('lane="passthrough"') && line.includes('status_class="2xx"') && line.includes(`error_type="${errorType}"`)) {
      sum += Number(line.slice(line.lastIndexOf(' ') + 1));
    }
  }
  return sum;
}
