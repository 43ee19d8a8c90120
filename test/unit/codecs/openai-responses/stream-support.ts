// Test helpers for the Responses stream encoder: run IR events through it, parse the SSE it wrote,
// check the responses.md §9 grammar, and feed the bytes to the real openai SDK stream accumulator.
import OpenAI from 'openai';
import { expect } from 'vitest';
import { responsesCodec } from '../../../../src/codecs/openai-responses/index.js';
import type { EncodeContext } from '../../../../src/codecs/types.js';
import { SseParser, type SseFrame } from '../../../../src/drivers/sse-parser.js';
import { foldEvents } from '../../../../src/ir/fold-events.js';
import type { IrEvent, IrRequest, Usage } from '../../../../src/ir/types.js';

/** Frozen clock for every deterministic scenario: completed_at is "now". */
export const NOW_MS = 1_767_000_003_000;
export const CREATED_AT = 1_767_000_000;

export function irRequest(over: Partial<IrRequest> = {}): IrRequest {
  return {
    model: 'gpt-5-caller',
    system: [],
    turns: [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
    tools: [],
    stopSequences: [],
    stream: true,
    sourceProtocol: 'responses',
    extras: {},
    ...over,
  };
}

export function encodeContext(over: Partial<IrRequest> = {}, responseId = 'resp_9c'): EncodeContext {
  return { request: irRequest(over), responseId, createdAt: CREATED_AT, warnings: [] };
}

export const usage = (u: Partial<Usage>): Usage => ({
  inputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  outputTokens: 0,
  reasoningTokens: 0,
  ...u,
});

/** A step is an IR event or a keep-alive ping. */
export type Step = IrEvent | 'ping';

export function runStream(steps: readonly Step[], ctx: EncodeContext): { sse: string; frames: string[]; finished: boolean; completedAt: number | undefined } {
  const frames: string[] = [];
  const enc = responsesCodec.createStreamEncoder(ctx, (f) => frames.push(f));
  for (const s of steps) {
    if (s === 'ping') enc.ping();
    else enc.event(s);
  }
  return { sse: frames.join(''), frames, finished: enc.finished, completedAt: enc.completedAt };
}

export function eventsOf(steps: readonly Step[]): IrEvent[] {
  return steps.filter((s): s is IrEvent => s !== 'ping');
}

/** What the non-streaming path answers for the same events. */
export function expectedResponse(steps: readonly Step[], ctx: EncodeContext): any {
  return JSON.parse(responsesCodec.encodeResult(foldEvents(eventsOf(steps)), ctx));
}

export interface ParsedFrame {
  event: string;
  data: Record<string, any>;
}

export function parseSse(sse: string, chunk = sse.length || 1): ParsedFrame[] {
  const raw: SseFrame[] = [];
  const parser = new SseParser((f) => raw.push(f));
  for (let i = 0; i < sse.length; i += chunk) parser.push(sse.slice(i, i + chunk));
  parser.end();
  return raw.map((f) => {
    expect(f.event, 'every frame carries an event: line').toBeTypeOf('string');
    expect(f.data, 'no [DONE] terminator').not.toBe('[DONE]');
    const data = JSON.parse(f.data) as Record<string, any>;
    expect(data.type, 'data.type equals the event name').toBe(f.event);
    return { event: f.event!, data };
  });
}

interface StreamedItem {
  id: string;
  type: string;
  callId?: string;
  /** Parts (message content / reasoning summary) added so far, and whether the last one is done. */
  parts: number;
  partOpen: boolean;
  contentDone: boolean;
  final?: any;
}

export interface Grammar {
  items: { id: string; type: string }[];
  terminal: 'response.completed' | 'response.incomplete' | 'response.failed';
  response: any;
  sawError: boolean;
}

/**
 * Asserts responses.md §9 and mapping.md §13/§15.20: sequence_number 0,1,2… on every event; created
 * then in_progress with the same snapshot; items added with gap-free output_index, every later event
 * naming the same item_id/output_index; content/summary parts in order; every added item done before
 * the next starts; exactly one terminal event, last, listing every item exactly as it was done.
 */
export function checkGrammar(frames: readonly ParsedFrame[]): Grammar {
  expect(frames.length).toBeGreaterThanOrEqual(3);
  frames.forEach((f, i) => expect(f.data.sequence_number, `sequence_number of frame ${i} (${f.event})`).toBe(i));
  expect(frames[0]!.event).toBe('response.created');
  expect(frames[1]!.event).toBe('response.in_progress');
  const created = frames[0]!.data.response;
  expect(created).toMatchObject({ object: 'response', status: 'in_progress', output: [], usage: null, error: null, completed_at: null });
  expect(frames[1]!.data.response).toEqual(created);
  const items: StreamedItem[] = [];
  let cur: StreamedItem | undefined;
  let sawError = false;
  for (let i = 2; i < frames.length; i++) {
    const { event, data } = frames[i]!;
    const about = (type?: string): StreamedItem => {
      expect(cur, `${event} outside an item`).toBeDefined();
      expect(data.item_id, `${event} item_id`).toBe(cur!.id);
      expect(data.output_index, `${event} output_index`).toBe(items.length - 1);
      if (type) expect(cur!.type, `${event} on a ${cur!.type} item`).toBe(type);
      return cur!;
    };
    switch (event) {
      case 'response.output_item.added': {
        expect(cur, 'previous item done before the next is added').toBeUndefined();
        expect(data.output_index).toBe(items.length);
        expect(data.item.id).toMatch(/^(msg|rs|fc|ctc)_/);
        expect(items.map((it) => it.id)).not.toContain(data.item.id);
        if (data.item.type === 'function_call') expect(data.item).toMatchObject({ status: 'in_progress', arguments: '' });
        if (data.item.type === 'message') expect(data.item).toMatchObject({ status: 'in_progress', content: [], role: 'assistant' });
        if (data.item.type === 'reasoning') expect(data.item.summary).toEqual([]);
        cur = { id: data.item.id, type: data.item.type, callId: data.item.call_id, parts: 0, partOpen: false, contentDone: false };
        if (cur.callId !== undefined) expect(items.map((it) => it.callId)).not.toContain(cur.callId);
        items.push(cur);
        break;
      }
      case 'response.content_part.added': {
        const it = about('message');
        expect(it.partOpen).toBe(false);
        expect(data.content_index).toBe(it.parts);
        expect(['output_text', 'refusal']).toContain(data.part.type);
        it.parts++;
        it.partOpen = true;
        break;
      }
      case 'response.output_text.delta':
      case 'response.refusal.delta':
        expect(about('message').partOpen).toBe(true);
        expect(data.content_index).toBe(cur!.parts - 1);
        expect(data.delta).not.toBe('');
        if (event === 'response.output_text.delta') expect(data.logprobs).toEqual([]);
        break;
      case 'response.output_text.done':
      case 'response.refusal.done':
        expect(about('message').partOpen).toBe(true);
        expect(data.content_index).toBe(cur!.parts - 1);
        break;
      case 'response.content_part.done':
        expect(about('message').partOpen).toBe(true);
        expect(data.content_index).toBe(cur!.parts - 1);
        cur!.partOpen = false;
        break;
      case 'response.reasoning_summary_part.added': {
        const it = about('reasoning');
        expect(it.partOpen).toBe(false);
        expect(data.summary_index).toBe(it.parts);
        expect(data.part).toEqual({ type: 'summary_text', text: '' });
        it.parts++;
        it.partOpen = true;
        break;
      }
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_summary_text.done':
        expect(about('reasoning').partOpen).toBe(true);
        expect(data.summary_index).toBe(cur!.parts - 1);
        break;
      case 'response.reasoning_summary_part.done':
        expect(about('reasoning').partOpen).toBe(true);
        expect(data.summary_index).toBe(cur!.parts - 1);
        cur!.partOpen = false;
        break;
      case 'response.function_call_arguments.delta':
        expect(about('function_call').contentDone).toBe(false);
        break;
      case 'response.function_call_arguments.done':
        about('function_call').contentDone = true;
        expect(data.name).toBeTypeOf('string');
        break;
      case 'response.custom_tool_call_input.delta':
        expect(about('custom_tool_call').contentDone).toBe(false);
        break;
      case 'response.custom_tool_call_input.done':
        about('custom_tool_call').contentDone = true;
        break;
      case 'response.output_item.done': {
        expect(cur).toBeDefined();
        expect(data.output_index).toBe(items.length - 1);
        expect(data.item.id).toBe(cur!.id);
        expect(data.item.type).toBe(cur!.type);
        expect(data.item.call_id).toBe(cur!.callId);
        expect(cur!.partOpen, 'every part done before its item').toBe(false);
        if (cur!.type === 'function_call' || cur!.type === 'custom_tool_call') expect(cur!.contentDone).toBe(true);
        if (cur!.type === 'function_call') expect(data.item.arguments).toBeTypeOf('string');
        expect(['completed', 'incomplete', undefined]).toContain(data.item.status);
        cur!.final = data.item;
        cur = undefined;
        break;
      }
      case 'error':
        expect(cur, 'open items are closed before the error').toBeUndefined();
        expect(data.code).toBeTypeOf('string');
        expect(data.message).toBeTypeOf('string');
        expect(data.param).toBeNull();
        expect(data.error).toEqual({ type: expect.any(String), code: data.code, message: data.message, param: null });
        expect(frames[i + 1]?.event, 'response.failed follows error').toBe('response.failed');
        sawError = true;
        break;
      case 'response.completed':
      case 'response.incomplete':
      case 'response.failed': {
        expect(cur, 'every item done before the terminal event').toBeUndefined();
        expect(i, 'the terminal event is the last frame').toBe(frames.length - 1);
        const r = data.response;
        expect(r.id).toBe(created.id);
        expect(r.status).toBe(event.slice('response.'.length));
        expect(r.output).toEqual(items.map((it) => it.final));
        if (event === 'response.failed') {
          expect(r.error).toEqual({ code: expect.any(String), message: expect.any(String) });
          expect(r.completed_at).toBeNull();
        } else {
          expect(r.error).toBeNull();
          expect(r.completed_at).toBeTypeOf('number');
          expect(r.usage.total_tokens).toBe(r.usage.input_tokens + r.usage.output_tokens);
        }
        return { items: items.map(({ id, type }) => ({ id, type })), terminal: event, response: r, sawError };
      }
      default:
        throw new Error(`unexpected event ${event}`);
    }
  }
  throw new Error('stream ended without a terminal event');
}

/** The real SDK accumulator (`client.responses.stream()`) over the SSE bytes, in `chunk`-byte pieces. */
export function sdkStream(sse: string, chunk = 64) {
  const bytes = new TextEncoder().encode(sse);
  const client = new OpenAI({
    apiKey: 'test-key',
    baseURL: 'http://127.0.0.1:9/v1',
    maxRetries: 0,
    fetch: async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(c) {
            for (let i = 0; i < bytes.length; i += chunk) c.enqueue(bytes.slice(i, i + chunk));
            c.close();
          },
        }),
        { status: 200, headers: { 'content-type': 'text/event-stream; charset=utf-8' } },
      ),
  });
  return client.responses.stream({ model: 'gpt-5-caller', input: 'hi' });
}

/** The SDK's final response as plain wire JSON: without the SDK-computed helper fields. */
export async function sdkFinalResponse(sse: string, chunk = 64): Promise<any> {
  const response = JSON.parse(JSON.stringify(await sdkStream(sse, chunk).finalResponse())) as Record<string, any>;
  delete response.output_text;
  delete response.output_parsed;
  for (const item of response.output) {
    delete item.parsed_arguments;
    if (item.type === 'message') for (const c of item.content) delete c.parsed;
  }
  return response;
}
