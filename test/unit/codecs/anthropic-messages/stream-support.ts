// Test helpers for the Messages stream encoder: run IR events through it, parse the SSE it wrote, check
// the §12 grammar, and feed the bytes to the real @anthropic-ai/sdk stream accumulator.
import Anthropic from '@anthropic-ai/sdk';
import { expect } from 'vitest';
import { messagesCodec } from '../../../../src/codecs/anthropic-messages/index.js';
import type { EncodeContext } from '../../../../src/codecs/types.js';
import { SseParser, type SseFrame } from '../../../../src/drivers/sse-parser.js';
import { foldEvents } from '../../../../src/ir/fold-events.js';
import type { IrEvent, IrRequest } from '../../../../src/ir/types.js';

export function encodeContext(model = 'claude-sonnet-4-5-20250929', responseId = 'msg_01XbK2Qm7sVfJ9aR3tYp4LcD'): EncodeContext {
  const request: IrRequest = {
    model,
    system: [],
    turns: [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
    tools: [],
    stopSequences: [],
    stream: true,
    sourceProtocol: 'messages',
    extras: {},
  };
  return { request, responseId, createdAt: 1_767_000_000, warnings: [] };
}

/** A step is an IR event or a keep-alive ping. */
export type Step = IrEvent | 'ping';

export function runStream(steps: readonly Step[], ctx = encodeContext()): { sse: string; frames: string[]; finished: boolean } {
  const frames: string[] = [];
  const enc = messagesCodec.createStreamEncoder(ctx, (f) => frames.push(f));
  for (const s of steps) {
    if (s === 'ping') enc.ping();
    else enc.event(s);
  }
  return { sse: frames.join(''), frames, finished: enc.finished };
}

export function eventsOf(steps: readonly Step[]): IrEvent[] {
  return steps.filter((s): s is IrEvent => s !== 'ping');
}

/** What the non-streaming path answers for the same events. */
export function expectedMessage(steps: readonly Step[], ctx = encodeContext()): unknown {
  return JSON.parse(messagesCodec.encodeResult(foldEvents(eventsOf(steps)), ctx));
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
    const data = JSON.parse(f.data) as Record<string, any>;
    expect(data.type, 'data.type equals the event name').toBe(f.event);
    return { event: f.event!, data };
  });
}

const DELTAS: Record<string, string[]> = {
  text: ['text_delta'],
  thinking: ['thinking_delta', 'signature_delta'],
  redacted_thinking: [],
  tool_use: ['input_json_delta'],
};

/**
 * Asserts messages.md §12: message_start first; blocks 0,1,2… sequential, never interleaved; deltas of
 * the block's own kind; one signature_delta right before a thinking block's stop; then one
 * message_delta (usage always present) and message_stop — or an `error` frame last and no message_stop.
 * Returns the block types in order and how the stream ended.
 */
export function checkGrammar(frames: readonly ParsedFrame[]): { blocks: string[]; end: 'stop' | 'error' } {
  expect(frames.length).toBeGreaterThan(0);
  const blocks: string[] = [];
  let state: 'start' | 'between' | 'block' | 'delta' | 'done' = 'start';
  let current = -1;
  let lastDelta = '';
  for (let i = 0; i < frames.length; i++) {
    const { event, data } = frames[i]!;
    expect(state, `frame ${i} (${event}) after the stream ended`).not.toBe('done');
    if (event === 'error') {
      expect(data.error.type).toBeTypeOf('string');
      expect(data.error.message).toBeTypeOf('string');
      expect(i, 'error is the last frame').toBe(frames.length - 1);
      return { blocks, end: 'error' };
    }
    if (state === 'start') {
      expect(event, 'first frame').toBe('message_start');
      const m = data.message;
      expect(m).toMatchObject({ type: 'message', role: 'assistant', content: [], stop_reason: null, stop_sequence: null });
      for (const k of ['input_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens', 'output_tokens']) {
        expect(m.usage[k], `message_start usage.${k}`).toBeTypeOf('number');
      }
      state = 'between';
      continue;
    }
    if (event === 'ping') continue;
    switch (event) {
      case 'content_block_start':
        expect(state, 'a block starts only after the previous one stopped').toBe('between');
        expect(data.index).toBe(blocks.length);
        current = data.index;
        blocks.push(data.content_block.type);
        expect(Object.keys(DELTAS)).toContain(data.content_block.type);
        if (data.content_block.type === 'text') expect(data.content_block.text).toBe('');
        if (data.content_block.type === 'thinking') expect(data.content_block).toEqual({ type: 'thinking', thinking: '', signature: '' });
        if (data.content_block.type === 'tool_use') expect(data.content_block.input).toEqual({});
        if (data.content_block.type === 'redacted_thinking') expect(data.content_block.data).not.toBe('');
        state = 'block';
        lastDelta = '';
        break;
      case 'content_block_delta':
        expect(['block', 'delta']).toContain(state);
        expect(data.index).toBe(current);
        expect(DELTAS[blocks[current]!]).toContain(data.delta.type);
        expect(lastDelta, 'nothing after signature_delta but the stop').not.toBe('signature_delta');
        if (data.delta.type === 'text_delta') expect(data.delta.text).not.toBe('');
        lastDelta = data.delta.type;
        state = 'delta';
        break;
      case 'content_block_stop':
        expect(['block', 'delta']).toContain(state);
        expect(data.index).toBe(current);
        if (blocks[current] === 'thinking') expect(lastDelta, 'thinking ends with its signature').toBe('signature_delta');
        state = 'between';
        break;
      case 'message_delta':
        expect(state, 'message_delta after every block stopped').toBe('between');
        expect(data.delta.stop_reason).toBeTypeOf('string');
        expect(data.usage.output_tokens).toBeTypeOf('number');
        expect(frames[i + 1]?.event, 'message_stop follows message_delta').toBe('message_stop');
        expect(i + 2, 'message_stop is last').toBe(frames.length);
        return { blocks, end: 'stop' };
      default:
        throw new Error(`unexpected event ${event}`);
    }
  }
  throw new Error('stream ended without message_stop or error');
}

/** The real SDK accumulator over the SSE bytes, delivered in `chunk`-byte pieces. */
export function sdkStream(sse: string, chunk = 64) {
  const bytes = new TextEncoder().encode(sse);
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      for (let i = 0; i < bytes.length; i += chunk) c.enqueue(bytes.slice(i, i + chunk));
      c.close();
    },
  });
  const client = new Anthropic({
    apiKey: 'test-key',
    baseURL: 'http://127.0.0.1:9',
    maxRetries: 0,
    fetch: async () => new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream; charset=utf-8' } }),
  });
  return client.messages.stream({ model: 'switchyard-test', max_tokens: 1024, messages: [{ role: 'user', content: 'hi' }] });
}

/** The SDK's final message as plain JSON: its non-enumerable buffers, undefined keys and the
 * client-side `parsed_output` helper field are not part of the wire message. */
export async function sdkFinalMessage(sse: string, chunk = 64): Promise<unknown> {
  const message = await sdkStream(sse, chunk).finalMessage();
  const { parsed_output: _parsed, ...wire } = JSON.parse(JSON.stringify(message)) as Record<string, unknown>;
  return wire;
}
