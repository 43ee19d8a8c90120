// Shared builders for the Anthropic Messages driver tests: IR requests, driver targets, fixture bytes,
// request-body encoding, and a decoder run through the real SSE parser.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { anthropicDriver } from '../../../../src/drivers/anthropic-messages/index.js';
import { SseParser } from '../../../../src/drivers/sse-parser.js';
import type { DriverTarget } from '../../../../src/drivers/types.js';
import type { IrEvent, IrRequest, Warning } from '../../../../src/ir/types.js';

const FIXTURES = fileURLToPath(new URL('../../../fixtures/upstream/anthropic-messages/', import.meta.url));

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
    sourceProtocol: 'responses',
    extras: {},
    ...over,
  };
}

export function target(over: Partial<DriverTarget> = {}): DriverTarget {
  return {
    model: 'claude-sonnet-4-5',
    apiKey: 'sk-ant-test',
    headers: {},
    options: { defaultMaxTokens: 32000, maxTokensField: 'max_tokens', echoReasoningContent: false, systemRole: 'system' },
    ...over,
  };
}

export interface Encoded {
  body: Record<string, any>;
  headers: Record<string, string>;
  path: string;
  warnings: Warning[];
}

export function encode(req: IrRequest, stream = false, t: DriverTarget = target()): Encoded {
  const warnings: Warning[] = [];
  const out = anthropicDriver.encodeRequest(req, t, stream, warnings);
  return { body: JSON.parse(out.body) as Record<string, any>, headers: out.headers, path: out.path, warnings };
}

export function warningFields(warnings: readonly Warning[]): string[] {
  return warnings.map((w) => w.field);
}

/** Feed the chunks through SseParser into the driver's decoder, then end both. */
export function decodeChunks(req: IrRequest, chunks: readonly (Uint8Array | string)[]): IrEvent[] {
  const events: IrEvent[] = [];
  const decoder = anthropicDriver.createEventDecoder(req, (ev) => events.push(ev));
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
