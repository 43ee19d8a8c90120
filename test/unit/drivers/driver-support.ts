// What every driver's tests share: fixture bytes by upstream protocol, an IR request builder, a decoder
// run through the real SSE parser, and the IR stream contract. Each driver folder's support.ts binds
// these to its driver and adds its own builders.
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { SseParser } from '../../../src/drivers/sse-parser.js';
import type { Driver } from '../../../src/drivers/types.js';
import type { IrEvent, IrRequest } from '../../../src/ir/types.js';

/** Reads `test/fixtures/upstream/<folder>/<name>` as bytes or as parsed JSON. */
export function upstreamFixtures(folder: string): { bytes(name: string): Buffer; json(name: string): unknown } {
  const dir = new URL(`../../fixtures/upstream/${folder}/`, import.meta.url);
  const bytes = (name: string) => readFileSync(new URL(name, dir));
  return { bytes, json: (name) => JSON.parse(bytes(name).toString('utf8')) };
}

/** A one-turn streamed IR request ("Hi"), with `over` applied. */
export function irRequest(base: Pick<IrRequest, 'model' | 'sourceProtocol'>, over: Partial<IrRequest> = {}): IrRequest {
  return {
    ...base,
    system: [],
    turns: [{ role: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
    tools: [],
    stopSequences: [],
    stream: true,
    extras: {},
    ...over,
  };
}

/** Feed the chunks through SseParser into the driver's decoder, then end both. */
export function decodeWith(driver: Driver, req: IrRequest, chunks: readonly (Uint8Array | string)[]): IrEvent[] {
  const events: IrEvent[] = [];
  const decoder = driver.createEventDecoder(req, (ev) => events.push(ev));
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
