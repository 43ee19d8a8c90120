// The Responses stream encoder builds each frame's constant start once per event type and appends only
// the varying JSON. These check what that must not change, for both encoders: every frame is
// `event: <name>\ndata: <one line of JSON>\n\n` with `type` equal to the name, hostile text is escaped
// into that one line and comes back intact, a later block's deltas carry the later index, and two
// streams encoded interleaved keep their own sequence numbers although they share the heads.
import { describe, expect, it } from 'vitest';
import { messagesCodec } from '../../../src/codecs/anthropic-messages/index.js';
import { responsesCodec } from '../../../src/codecs/openai-responses/index.js';
import type { InboundCodec, StreamEncoder } from '../../../src/codecs/types.js';
import type { IrEvent } from '../../../src/ir/types.js';
import { encodeContext as messagesContext } from './anthropic-messages/stream-support.js';
import { encodeContext as responsesContext } from './openai-responses/stream-support.js';

const HOSTILE = [
  'plain',
  'quote " and backslash \\ and slash </script>',
  'line\nbreak\r\ncarriage\rreturn',
  '\n\nevent: forged\ndata: {"type":"forged"}\n\n',
  'separators \u2028 \u2029 and a tab\t and NUL \u0000',
  'lone surrogate \ud800 and emoji 🚀 and é',
];

function events(texts: readonly string[]): IrEvent[] {
  const out: IrEvent[] = [{ type: 'response-start', id: 'up_1', model: 'm' }];
  // Thinking, then two text blocks: each block's deltas under its own index.
  out.push({ type: 'reasoning-start', block: 0 }, { type: 'reasoning-delta', block: 0, text: texts[0]! }, { type: 'reasoning-end', block: 0 });
  for (let b = 1; b <= 2; b++) {
    out.push({ type: 'text-start', block: b });
    for (const text of texts) out.push({ type: 'text-delta', block: b, text });
    out.push({ type: 'text-end', block: b });
  }
  out.push({ type: 'finish', finish: { reason: 'end_turn', raw: 'end_turn' } });
  return out;
}

interface Frame {
  event: string;
  data: Record<string, any>;
}

function parseFrames(frames: string[]): Frame[] {
  return frames.map((f) => {
    const m = /^event: ([a-z_.]+)\ndata: ([^\n]*)\n\n$/.exec(f);
    expect(m, `frame ${JSON.stringify(f)}`).not.toBeNull();
    const data = JSON.parse(m![2]!) as Record<string, any>;
    expect(data.type).toBe(m![1]);
    return { event: m![1]!, data };
  });
}

function encoder(codec: InboundCodec, sink: string[]): StreamEncoder {
  const ctx = codec === messagesCodec ? messagesContext() : responsesContext();
  return codec.createStreamEncoder(ctx, (frame) => sink.push(frame));
}

describe('stream frames built from cached heads', () => {
  it('Messages: one line of JSON per frame, text intact, each block’s deltas under its own index', () => {
    const sink: string[] = [];
    const enc = encoder(messagesCodec, sink);
    for (const ev of events(HOSTILE)) enc.event(ev);
    const frames = parseFrames(sink);
    const starts = frames.filter((f) => f.event === 'content_block_start').map((f) => [f.data.index, f.data.content_block.type]);
    expect(starts).toEqual([
      [0, 'thinking'],
      [1, 'text'],
      [2, 'text'],
    ]);
    const deltas = frames.filter((f) => f.event === 'content_block_delta');
    expect(deltas.filter((f) => f.data.delta.type === 'thinking_delta').map((f) => [f.data.index, f.data.delta.thinking])).toEqual([[0, HOSTILE[0]]]);
    for (const index of [1, 2]) {
      const texts = deltas.filter((f) => f.data.index === index).map((f) => f.data.delta);
      expect(texts).toEqual(HOSTILE.map((text) => ({ type: 'text_delta', text })));
    }
  });

  it('Responses: one line of JSON per frame, text intact, sequence numbers per stream though heads are shared', () => {
    const a: string[] = [];
    const b: string[] = [];
    const encA = encoder(responsesCodec, a);
    const encB = encoder(responsesCodec, b);
    const evs = events(HOSTILE);
    // Interleaved, and B a step behind: a shared counter would show at once.
    encA.event(evs[0]!);
    for (let i = 0; i < evs.length; i++) {
      if (i + 1 < evs.length) encA.event(evs[i + 1]!);
      encB.event(evs[i]!);
    }
    for (const sink of [a, b]) {
      const frames = parseFrames(sink);
      expect(frames.map((f) => f.data.sequence_number)).toEqual(frames.map((_, i) => i));
      const deltas = frames.filter((f) => f.event === 'response.output_text.delta');
      expect(deltas.map((f) => f.data.delta)).toEqual([...HOSTILE, ...HOSTILE]);
      for (const f of deltas) expect(f.data.logprobs).toEqual([]);
      expect(frames.at(-1)!.event).toBe('response.completed');
    }
    expect(a).toEqual(b);
  });

  it('Responses: a refusal streams as refusal deltas with the same framing', () => {
    const sink: string[] = [];
    const enc = encoder(responsesCodec, sink);
    enc.event({ type: 'response-start', id: 'up', model: 'm' });
    enc.event({ type: 'text-start', block: 0, refusal: true });
    for (const text of HOSTILE) enc.event({ type: 'text-delta', block: 0, text });
    enc.event({ type: 'text-end', block: 0 });
    enc.event({ type: 'finish', finish: { reason: 'refusal', raw: 'refusal' } });
    const deltas = parseFrames(sink).filter((f) => f.event === 'response.refusal.delta');
    expect(deltas.map((f) => f.data.delta)).toEqual(HOSTILE);
    for (const f of deltas) expect(f.data).not.toHaveProperty('logprobs');
  });
});
