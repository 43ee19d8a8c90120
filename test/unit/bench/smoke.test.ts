// The benchmark's fake upstream, FLOOR and JSON-FLOOR proxies, in-process for about a second: every
// protocol answers a complete, well-formed body or event stream, directly and through both floors, so a
// benchmark never measures a broken baseline.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { ANSWER_TEXT } from '../../../bench/corpus.js';
import { startFakeUpstream, type FakeUpstream } from '../../../bench/fake-upstream.js';
import { startFloorProxy, type FloorProxy } from '../../../bench/floor-proxy.js';
import { SseLineRewriter, startJsonFloorProxy, type JsonFloorProxy } from '../../../bench/json-floor-proxy.js';
import { ENDPOINT, geminiPath, requestBody, requestHeaders, type Protocol } from '../../../bench/request-bodies.js';
import { pacingTick, splitText, STREAM_OPENING, STREAM_OVERHEAD, STREAM_TERMINAL } from '../../../bench/upstream-replies.js';

const EVENTS = 12;
const PROTOCOLS: Protocol[] = ['messages', 'responses', 'chat'];

let upstream: FakeUpstream;
let paced: FakeUpstream;
let floor: FloorProxy;
let jsonFloor: JsonFloorProxy;

beforeAll(async () => {
  upstream = await startFakeUpstream({ events: EVENTS });
  paced = await startFakeUpstream({ events: 8, paceMs: 40 });
  floor = await startFloorProxy({ upstream: upstream.url, connections: 8 });
  // JSON-FLOOR maps the model the way the gateway maps an alias; the fake upstream echoes what it saw.
  jsonFloor = await startJsonFloorProxy({
    upstream: upstream.url,
    connections: 8,
    models: Object.fromEntries([...PROTOCOLS, 'gemini'].map((p) => [`alias-${p}`, `model-${p}`])),
  });
});

afterAll(async () => {
  await floor?.close();
  await jsonFloor?.close();
  await upstream?.close();
  await paced?.close();
});

async function post(base: string, path: string, protocol: Protocol, stream: boolean, model = `model-${protocol}`) {
  const res = await request(base + path, {
    method: 'POST',
    headers: requestHeaders(protocol),
    body: requestBody(protocol, model, stream),
  });
  return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
}

interface Frame {
  event?: string;
  data: string;
}

function frames(text: string): Frame[] {
  return text
    .split('\n\n')
    .filter((f) => f.length > 0)
    .map((block) => {
      const frame: Frame = { data: '' };
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) frame.event = line.slice(7);
        else if (line.startsWith('data: ')) frame.data = line.slice(6);
      }
      return frame;
    });
}

/** The answer text reassembled from a stream's deltas, checking the protocol's framing on the way. */
function streamedText(protocol: Protocol, list: Frame[]): string {
  let text = '';
  if (protocol === 'chat') {
    expect(list.every((f) => f.event === undefined)).toBe(true);
    expect(list[list.length - 1]!.data).toBe('[DONE]');
    const chunks = list.slice(0, -1).map((f) => JSON.parse(f.data));
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks[chunks.length - 1].choices).toEqual([]);
    expect(chunks[chunks.length - 1].usage.total_tokens).toBeGreaterThan(0);
    expect(chunks[chunks.length - 2].choices[0].finish_reason).toBe('stop');
    for (const c of chunks) text += c.choices[0]?.delta?.content ?? '';
    return text;
  }
  const events = list.map((f) => {
    const data = JSON.parse(f.data);
    expect(data.type).toBe(f.event);
    return data;
  });
  if (protocol === 'messages') {
    expect(events[0].type).toBe('message_start');
    expect(events[0].message.usage.input_tokens).toBeGreaterThan(0);
    expect(events[events.length - 2].type).toBe('message_delta');
    expect(events[events.length - 2].delta.stop_reason).toBe('end_turn');
    expect(events[events.length - 1].type).toBe('message_stop');
    for (const e of events) if (e.type === 'content_block_delta') text += e.delta.text;
    return text;
  }
  expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
  expect(events[0].type).toBe('response.created');
  const completed = events[events.length - 1];
  expect(completed.type).toBe('response.completed');
  expect(completed.response.id).toBe(events[0].response.id);
  expect(completed.response.output[0].content[0].text).toBe(ANSWER_TEXT);
  for (const e of events) if (e.type === 'response.output_text.delta') text += e.delta;
  return text;
}

function bodyText(protocol: Protocol, json: any): string {
  if (protocol === 'messages') return json.content[0].text;
  if (protocol === 'responses') return json.output[0].content[0].text;
  return json.choices[0].message.content;
}

const VIAS = ['direct', 'floor', 'json-floor'] as const;
const baseOf = (via: (typeof VIAS)[number]) => (via === 'direct' ? upstream.url : via === 'floor' ? floor.url : jsonFloor.url);
const modelFor = (via: (typeof VIAS)[number], protocol: Protocol) => (via === 'json-floor' ? `alias-${protocol}` : `model-${protocol}`);

describe('bench fake upstream, FLOOR and JSON-FLOOR proxies', () => {
  for (const via of VIAS) {
    it(`${via}: gemini, model and mode in the path, body and stream complete`, async () => {
      // JSON-FLOOR maps the alias in the path, as the gateway maps it to the upstream model.
      const model = via === 'json-floor' ? 'alias-gemini' : 'model-gemini';
      const res = await post(baseOf(via), geminiPath(model, false), 'gemini', false, model);
      expect(res.status).toBe(200);
      const json = JSON.parse(res.text);
      expect(json.modelVersion).toBe('model-gemini');
      expect(json.candidates[0].content.parts[0].text).toBe(ANSWER_TEXT);
      const streamed = await post(baseOf(via), geminiPath(model, true), 'gemini', true, model);
      expect(streamed.headers['content-type']).toMatch(/^text\/event-stream/);
      const chunks = streamed.text.split('\r\n\r\n').filter((f) => f.length > 0);
      expect(chunks).toHaveLength(EVENTS);
      expect(chunks[chunks.length - 1]).toContain(STREAM_TERMINAL.gemini);
      const parsed = chunks.map((c) => JSON.parse(c.replace(/^data: /, '')));
      expect(parsed.map((c) => c.candidates[0].content.parts[0].text).join('')).toBe(ANSWER_TEXT);
      expect(new Set(parsed.map((c) => c.responseId)).size).toBe(1);
    });


    for (const protocol of PROTOCOLS) {
      it(`${via}: ${protocol} non-streamed body is complete`, async () => {
        const res = await post(baseOf(via), ENDPOINT[protocol], protocol, false, modelFor(via, protocol));
        expect(res.status).toBe(200);
        expect(res.headers['content-type']).toBe('application/json');
        expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.text));
        const json = JSON.parse(res.text);
        expect(json.model).toBe(`model-${protocol}`);
        expect(bodyText(protocol, json)).toBe(ANSWER_TEXT);
      });

      it(`${via}: ${protocol} stream has ${EVENTS} well-formed events`, async () => {
        const res = await post(baseOf(via), ENDPOINT[protocol], protocol, true, modelFor(via, protocol));
        expect(res.status).toBe(200);
        expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
        expect(res.text.endsWith('\n\n')).toBe(true);
        expect(res.text).toContain(STREAM_TERMINAL[protocol]);
        const list = frames(res.text);
        expect(list).toHaveLength(EVENTS);
        expect(streamedText(protocol, list)).toBe(ANSWER_TEXT);
      });
    }
  }

  it('answers the path aliases, stamps unique ids, and 404s unknown routes', async () => {
    const a = JSON.parse((await post(upstream.url, '/responses', 'responses', false)).text);
    const b = JSON.parse((await post(floor.url, '/responses', 'responses', false)).text);
    expect(a.id).not.toBe(b.id);
    expect(a.id).toMatch(/^resp_[0-9a-z]{24}$/);
    expect((await post(upstream.url, '/chat/completions', 'chat', false)).status).toBe(200);
    expect((await post(upstream.url, '/v1/messages?beta=true', 'messages', false)).status).toBe(200);
    expect((await post(floor.url, '/v1/nowhere', 'chat', false)).status).toBe(404);
    const missing = await post(jsonFloor.url, '/v1/nowhere', 'chat', false);
    expect(missing.status).toBe(404);
    expect(Number(missing.headers['content-length'])).toBe(Buffer.byteLength(missing.text));
  });

  it('JSON-FLOOR re-serialises SSE data lines split anywhere, multi-byte characters included', () => {
    const source = 'event: a\ndata: {"t": "héllo ✓",  "n": 1}\n\ndata: [DONE]\n\n';
    const bytes = Buffer.from(source);
    for (let cut = 1; cut < bytes.length; cut++) {
      const rewriter = new SseLineRewriter();
      const out = rewriter.push(bytes.subarray(0, cut)) + rewriter.push(bytes.subarray(cut)) + rewriter.end();
      expect(out).toBe('event: a\ndata: {"t":"héllo ✓","n":1}\n\ndata: [DONE]\n\n');
    }
  });

  it('JSON-FLOOR answers 400 to a body that is not JSON', async () => {
    const res = await request(jsonFloor.url + ENDPOINT.messages, { method: 'POST', headers: requestHeaders('messages'), body: '{"model": ' });
    expect(res.statusCode).toBe(400);
    expect(await res.body.text()).toMatch(/not JSON/);
  });

  it('paces the deltas, as a vendor streams: framing events with the first and the last delta', async () => {
    // 8 events: Messages' 3 opening events, 2 deltas, 3 closing events. Each event its own write.
    const t0 = performance.now();
    const res = await request(paced.url + ENDPOINT.messages, { method: 'POST', headers: requestHeaders('messages'), body: requestBody('messages', 'model-messages', true) });
    const arrivals: { ms: number; events: string[] }[] = [];
    for await (const chunk of res.body) arrivals.push({ ms: performance.now() - t0, events: [...String(chunk).matchAll(/^event: (\S+)/gm)].map((m) => m[1]!) });
    const tickOf = (event: string, nth = 0) => Math.round(arrivals.filter((a) => a.events.includes(event))[nth]!.ms / 40);
    expect(arrivals.flatMap((a) => a.events)).toEqual(['message_start', 'content_block_start', 'ping', 'content_block_delta', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
    expect([tickOf('message_start'), tickOf('ping')]).toEqual([0, 0]);
    expect([tickOf('content_block_delta', 0), tickOf('content_block_delta', 1)]).toEqual([1, 2]);
    expect([tickOf('content_block_stop'), tickOf('message_stop')]).toEqual([2, 2]);
  });

  it('schedules each protocol’s framing events with its first and last delta', () => {
    // Responses: 4 opening, 4 closing; 10 chunks = 2 deltas.
    const responses = { opening: STREAM_OPENING.responses, closing: STREAM_OVERHEAD.responses - STREAM_OPENING.responses };
    expect(Array.from({ length: 10 }, (_, i) => pacingTick(responses, 10, i))).toEqual([0, 0, 0, 0, 1, 2, 2, 2, 2, 2]);
    // Gemini has no opening event: its first delta leaves at once.
    const gemini = { opening: 0, closing: STREAM_OVERHEAD.gemini };
    expect(Array.from({ length: 4 }, (_, i) => pacingTick(gemini, 4, i))).toEqual([0, 1, 2, 2]);
  });

  it('splits text into the requested number of non-empty pieces', () => {
    for (const n of [1, 7, 44, 500]) {
      const pieces = splitText(ANSWER_TEXT, n);
      expect(pieces).toHaveLength(n);
      expect(pieces.every((p) => p.length > 0)).toBe(true);
      expect(pieces.join('')).toBe(ANSWER_TEXT);
    }
  });
});
