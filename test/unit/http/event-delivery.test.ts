import { ANONYMOUS_CALLER } from '../../../src/access/caller.js';
// EventDelivery as a route sees it: IR events in, the caller's protocol out. Streams peek the first
// event (an early error is a real status the router may fall back on, nothing written), then commit —
// which also marks the attempt's deployment healthy — and encode as events arrive; a stream that ends
// without its terminal event gets the protocol's error event. Non-streamed callers get the fold.
import type { FastifyReply, FastifyRequest } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildApp, type BuiltApp } from '../../../src/app.js';
import { messagesCodec } from '../../../src/codecs/anthropic-messages/index.js';
import { responsesCodec } from '../../../src/codecs/openai-responses/index.js';
import type { InboundCodec } from '../../../src/codecs/types.js';
import { resolveConfig } from '../../../src/config/load-config.js';
import { GatewayError } from '../../../src/errors.js';
import { EventDelivery } from '../../../src/http/event-delivery.js';
import { Generation } from '../../../src/http/generation.js';
import type { IrEvent, IrResult, Warning } from '../../../src/ir/types.js';
import { foldEvents } from '../../../src/ir/fold-events.js';
import { RequestRecord } from '../../../src/observability/request-record.js';
import { decodeStoredResponse, encodeAnswerRecord, type AnswerRecord } from '../../../src/responses-store/stored-response.js';
import { parseSse } from '../support/raw-http.js';

const config = resolveConfig(
  {
    auth: { open: true },
    server: { host: '127.0.0.1', port: 0, heartbeat_ms: 10_000 },
    log: { level: 'silent' },
    providers: { up: { protocol: 'messages', base_url: 'http://127.0.0.1:9' } },
    models: { alias: { provider: 'up', model: 'claude-up' } },
  },
  'test',
);

const ok: IrEvent[] = [
  { type: 'response-start', id: 'msg_up', model: 'claude-up' },
  { type: 'text-start', block: 0 },
  { type: 'text-delta', block: 0, text: 'Hello' },
  { type: 'text-end', block: 0 },
  { type: 'usage', usage: { inputTokens: 3, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 } },
  { type: 'finish', finish: { reason: 'end_turn', raw: 'end_turn' } },
];

interface Outcome {
  error?: GatewayError;
  committed: boolean;
  rec: RequestRecord;
  gen?: Generation;
}

describe('EventDelivery', () => {
  let built: BuiltApp;
  let script: IrEvent[] = [];
  /** How the script reaches the delivery: event by event, as one upstream chunk, or as a whole result. */
  let mode: 'events' | 'chunk' | 'result' = 'events';
  let last: Outcome;

  async function deliver(codec: InboundCodec, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const ctx = built.ctx;
    const warnings: Warning[] = [];
    const ir = codec.decodeRequest(request.body, warnings);
    const plan = ctx.table.resolve(ir.model)!;
    const rec = new RequestRecord('req_t', codec.protocol, performance.now());
    const gen = new Generation(
      { ctx, codec, ir, body: request.body as Record<string, unknown>, caller: ANONYMOUS_CALLER, rec, request, reply, warnings, requestId: 'req_t', plan, clientGone: new AbortController() },
      codec.responseIdPrefix + 'test',
    );
    const target = plan.targets[0]!;
    gen.attemptTarget = target;
    const delivery = new EventDelivery(gen, target);
    if (mode === 'result') {
      delivery.deliverResult(foldEvents(script));
    } else {
      if (mode === 'chunk') delivery.beginChunk();
      for (const ev of script) delivery.emit(ev);
      if (mode === 'chunk') delivery.endChunk();
      delivery.end();
    }
    last = { committed: false, rec, gen };
    try {
      await delivery.done;
    } catch (err) {
      last.error = err as GatewayError;
      reply.code(599).send('{"failed":true}');
    }
    last.committed = gen.committed;
  }

  beforeAll(async () => {
    built = buildApp(config, { logger: pino({ level: 'silent' }) });
    built.app.post('/test/messages', (request, reply) => deliver(messagesCodec, request, reply));
    built.app.post('/test/responses', (request, reply) => deliver(responsesCodec, request, reply));
    await built.app.ready();
  });
  afterAll(async () => {
    await built.app.close();
  });

  beforeEach(() => {
    mode = 'events';
  });

  const messages = (stream: boolean) => ({ model: 'alias', max_tokens: 10, stream, messages: [{ role: 'user', content: 'hi' }] });

  it('streams the events as Messages SSE, committed, and marks the deployment healthy', async () => {
    script = ok;
    const health = built.ctx.health;
    const policy = config.providers.get('up')!.cooldown;
    for (let i = 0; i < policy.failures - 1; i++) health.failure('up/claude-up', policy);
    const res = await built.app.inject({ method: 'POST', url: '/test/messages', payload: messages(true) });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/event-stream');
    expect(res.headers['request-id']).toBe('req_t');
    const events = parseSse(res.body);
    expect(events.map((e) => e.event)).toEqual(['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
    expect(JSON.parse(events[0]!.data).message).toMatchObject({ id: 'msg_test', model: 'alias' });
    expect(last.committed).toBe(true);
    expect(last.rec.finishReason).toBe('end_turn');
    // commit() cleared the failures: one more no longer trips the circuit.
    health.failure('up/claude-up', policy);
    expect(health.state('up/claude-up')).toBe('closed');
  });

  it('a stream lets go of the conversation after its opening frame, which still estimated the input from it; a stored answer keeps its text', async () => {
    script = ok.filter((e) => e.type !== 'usage');
    const conversation = { model: 'alias', max_tokens: 10, stream: true, system: 'be brief '.repeat(50), messages: [{ role: 'user', content: 'hello there '.repeat(100) }] };
    const res = await built.app.inject({ method: 'POST', url: '/test/messages', payload: conversation });
    const start = JSON.parse(parseSse(res.body)[0]!.data) as { message: { usage: { input_tokens: number } } };
    // The estimate of ~1,600 characters of conversation, not of an empty one.
    expect(start.message.usage.input_tokens).toBeGreaterThan(200);
    expect(last.gen!.ir.turns).toEqual([]);
    expect(last.gen!.ir.system).toEqual([]);
    expect(last.gen!.ir.model).toBe('alias');

    // Responses with `store` unset: the answer is stored at the end, from the body's text taken at release.
    const stored = { model: 'alias', input: 'hello there', stream: true };
    await built.app.inject({ method: 'POST', url: '/test/responses', payload: stored });
    expect(last.gen!.ir.turns).toEqual([]);
    expect(last.gen!.body).toEqual({});
    expect(JSON.parse(last.gen!.requestJson!)).toEqual(stored);
    await built.app.inject({ method: 'POST', url: '/test/responses', payload: { model: 'alias', input: 'hello there', stream: true, store: false } });
    expect(last.gen!.ir.turns).toEqual([]);
    expect(last.gen!.requestJson).toBeUndefined();
  });

  it('a stored answer keeps the folded parts, not the response text: read back, its response is the one the caller got (stream and body)', async () => {
    // Text beyond ASCII (two-byte and four-byte UTF-8).
    script = ok.map((e) => (e.type === 'text-delta' ? { ...e, text: 'Héllo ✓ 🙂 "q"\n' } : e));
    const saver = built.ctx.saver;
    const saveAfter = saver.saveAfter;
    let record: AnswerRecord | undefined;
    saver.saveAfter = (res, id, requestId, build) => saveAfter.call(saver, res, id, requestId, () => (record = build()));
    try {
      for (const stream of [true, false]) {
        const payload = { model: 'alias', input: 'hi', instructions: 'be brief ✓', stream };
        const res = await built.app.inject({ method: 'POST', url: '/test/responses', payload });
        await saver.idle();
        let sent = res.body;
        if (stream) {
          const terminal = parseSse(res.body).find((e) => e.event === 'response.completed')!.data;
          sent = terminal.slice(terminal.indexOf(',"response":') + ',"response":'.length, -1);
        }
        expect(JSON.parse(sent)).toMatchObject({ id: 'resp_test', status: 'completed', output: [{ type: 'message', content: [{ text: 'Héllo ✓ 🙂 "q"\n' }] }] });
        expect(record!.responseJson).toBeUndefined();
        expect(record!.rendered).toMatchObject({ completedAt: JSON.parse(sent).completed_at, finish: { reason: 'end_turn' } });
        expect(record!.outputItemIds).toEqual([JSON.parse(sent).output[0].id]);
        expect(record!.answer).toEqual(foldEvents(script).content);
        // Rendered again from the record: what the caller got.
        expect(decodeStoredResponse(encodeAnswerRecord(record!))!.response).toEqual(JSON.parse(sent));
        record = undefined;
      }
    } finally {
      saver.saveAfter = saveAfter;
    }
  });

  it('an error as the first event is a failure before any byte: nothing written, not committed', async () => {
    script = [{ type: 'error', error: { kind: 'overloaded', message: 'busy upstream' } }];
    const res = await built.app.inject({ method: 'POST', url: '/test/messages', payload: messages(true) });
    expect(res.statusCode).toBe(599);
    expect(last.error).toBeInstanceOf(GatewayError);
    expect(last.error).toMatchObject({ kind: 'overloaded', message: 'busy upstream' });
    expect(last.committed).toBe(false);
  });

  it('a stream that ends without its terminal event closes with the protocol’s error event', async () => {
    script = ok.slice(0, 3);
    const res = await built.app.inject({ method: 'POST', url: '/test/responses', payload: { model: 'alias', input: 'hi', stream: true, store: false } });
    expect(res.statusCode).toBe(200);
    const names = parseSse(res.body).map((e) => e.event);
    expect(names.slice(-2)).toEqual(['error', 'response.failed']);
    expect(last.rec.errorKind).toBe('api_error');
  });

  it('a non-streamed caller gets the fold as one body', async () => {
    script = ok;
    const res = await built.app.inject({ method: 'POST', url: '/test/messages', payload: messages(false) });
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ id: 'msg_test', model: 'alias', content: [{ type: 'text', text: 'Hello' }], stop_reason: 'end_turn' });
    expect(last.committed).toBe(true);
  });

  it('a non-streamed answer cut short is an error, not a partial body', async () => {
    script = ok.slice(0, 3);
    const res = await built.app.inject({ method: 'POST', url: '/test/messages', payload: messages(false) });
    expect(res.statusCode).toBe(599);
    expect(last.error).toMatchObject({ kind: 'api_error', message: 'upstream answer ended before it was complete' });
    expect(last.committed).toBe(false);
  });

  it('a whole answer (deliverResult) is the body its events fold to; a streaming caller gets the same frames', async () => {
    script = ok;
    const viaEvents = await built.app.inject({ method: 'POST', url: '/test/responses', payload: { model: 'alias', input: 'hi', store: false } });
    mode = 'result';
    const viaResult = await built.app.inject({ method: 'POST', url: '/test/responses', payload: { model: 'alias', input: 'hi', store: false } });
    expect(viaResult.statusCode).toBe(200);
    const [a, b] = [JSON.parse(viaEvents.body), JSON.parse(viaResult.body)] as Record<string, unknown>[];
    // completed_at is the clock's second: the only member allowed to differ between the two answers.
    expect({ ...b, completed_at: 0 }).toEqual({ ...a, completed_at: 0 });
    expect(b.output).toEqual([expect.objectContaining({ type: 'message', content: [expect.objectContaining({ text: 'Hello' })] })]);
    expect(last.rec.usage).toMatchObject({ inputTokens: 3, outputTokens: 1 });
    expect(last.rec.finishReason).toBe('end_turn');
    expect(last.committed).toBe(true);

    const streamed = await built.app.inject({ method: 'POST', url: '/test/messages', payload: messages(true) });
    mode = 'events';
    const reference = await built.app.inject({ method: 'POST', url: '/test/messages', payload: messages(true) });
    expect(parseSse(streamed.body)).toEqual(parseSse(reference.body));
  });

  it('the events of one upstream chunk share one clock reading, and the chunk is timed as encode time', async () => {
    script = ok;
    mode = 'chunk';
    const res = await built.app.inject({ method: 'POST', url: '/test/messages', payload: messages(true) });
    expect(parseSse(res.body).map((e) => e.event)).toEqual(['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
    const rec = last.rec;
    expect(rec.tFirstToken).toBeGreaterThan(0);
    // The event-gap metric saw every event at the chunk's time: the same reading as the first token.
    expect(rec.lastEventAt).toBe(rec.tFirstToken);
    expect(rec.encodeMs).toBeGreaterThan(0);
  });
});
