// Shared builders for the Chat Completions driver tests: IR requests, driver targets, fixture bytes,
// and a decoder run that goes through the real SSE parser.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { chatDriver } from '../../../../src/drivers/openai-chat/index.js';
import { SseParser } from '../../../../src/drivers/sse-parser.js';
import type { DriverOptions, DriverTarget } from '../../../../src/drivers/types.js';
import type { IrEvent, IrRequest } from '../../../../src/ir/types.js';

const FIXTURES = fileURLToPath(new URL('../../../fixtures/upstream/openai-chat/', import.meta.url));

export function fixture(name: string): Buffer {
  return readFileSync(FIXTURES + name);
}

export function fixtureJson(name: string): unknown {
  return JSON.parse(fixture(name).toString('utf8'));
}

export function request(over: Partial<IrRequest> = {}): IrRequest {
  return {
    model: 'caller-alias',
    system: [],
    turns: [{ role: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
    tools: [],
    stopSequences: [],
    stream: true,
    sourceProtocol: 'messages',
    extras: {},
    ...over,
  };
}

/** `apiKey: null` = an upstream without a key (local servers). */
export function target(options: Partial<DriverOptions> = {}, apiKey: string | null = 'sk-test'): DriverTarget {
  return {
    model: 'upstream-model',
    apiKey: apiKey ?? undefined,
    headers: {},
    options: { defaultMaxTokens: 4096, maxTokensField: 'max_tokens', echoReasoningContent: false, systemRole: 'system', ...options },
  };
}

/** Feed the chunks through SseParser into the driver's decoder, then end both. */
export function decodeChunks(req: IrRequest, chunks: readonly (Uint8Array | string)[]): IrEvent[] {
  const events: IrEvent[] = [];
  const decoder = chatDriver.createEventDecoder(req, (ev) => events.push(ev));
  const parser = new SseParser((frame) => decoder.frame(frame));
  for (const chunk of chunks) parser.push(chunk);
  parser.end();
  decoder.end();
  return events;
}

/** The IR stream contract: response-start first (unless the stream failed before any output), blocks
 * numbered 0,1,2… and strictly sequential, exactly one terminal event and it is last. */
export function expectWellFormed(events: readonly IrEvent[]): void {
  const terminal = events.findIndex((e) => e.type === 'finish' || e.type === 'error');
  expect(terminal, 'a terminal event').toBe(events.length - 1);
  if (events[0]?.type !== 'error') expect(events[0]?.type).toBe('response-start');
  let open: { block: number; kind: string } | undefined;
  let next = 0;
  for (const ev of events.slice(1)) {
    if (!('block' in ev)) {
      if (ev.type !== 'error') expect(open, `${ev.type} while a block is open`).toBeUndefined();
      continue;
    }
    const [kind, phase] = ev.type.startsWith('tool-call') ? ['tool-call', ev.type.slice(10)] : (ev.type.split('-') as [string, string]);
    if (phase === 'start') {
      expect(open, `block ${ev.block} starts while ${open?.block} is open`).toBeUndefined();
      expect(ev.block).toBe(next++);
      open = { block: ev.block, kind };
    } else {
      expect(open?.block, `${ev.type} on a closed block`).toBe(ev.block);
      expect(open?.kind).toBe(kind);
      if (phase === 'end') open = undefined;
    }
  }
}
