// Long streamed texts are kept as flat strings every FLATTEN_EVERY appends (src/ir/keep-flat.ts): the texts
// must be exactly the deltas joined, across those boundaries, in the fold and in the Responses encoder.
import { describe, expect, it } from 'vitest';
import { EventFolder } from '../../../src/ir/fold-events.js';
import { FLATTEN_EVERY, keepFlat } from '../../../src/ir/keep-flat.js';
import { encodeContext, parseSse, runStream, usage } from '../codecs/openai-responses/stream-support.js';

const deltas = Array.from({ length: 3 * FLATTEN_EVERY + 7 }, (_, i) => `d${i}→ `);

describe('keepFlat', () => {
  it('returns the text it is given, whatever the count', () => {
    let text = '';
    for (let i = 0; i < deltas.length; i++) text = keepFlat(text + deltas[i], i + 1);
    expect(text).toBe(deltas.join(''));
  });

  it('the fold joins text, reasoning and arguments deltas across flattenings', () => {
    const f = new EventFolder();
    f.push({ type: 'response-start', id: 'r', model: 'm' });
    f.push({ type: 'reasoning-start', block: 0 });
    for (const d of deltas) f.push({ type: 'reasoning-delta', block: 0, text: d });
    f.push({ type: 'reasoning-end', block: 0 });
    f.push({ type: 'text-start', block: 1 });
    for (const d of deltas) f.push({ type: 'text-delta', block: 1, text: d });
    f.push({ type: 'text-end', block: 1 });
    f.push({ type: 'tool-call-start', block: 2, id: 'c', name: 'n', kind: 'function' });
    for (const d of deltas) f.push({ type: 'tool-call-delta', block: 2, argumentsDelta: d });
    f.push({ type: 'tool-call-end', block: 2 });
    f.push({ type: 'finish', finish: { reason: 'tool_use', raw: 'tool_use' } });
    const [reasoning, text, call] = f.result().content;
    expect(reasoning).toMatchObject({ type: 'reasoning', text: deltas.join('') });
    expect(text).toMatchObject({ type: 'text', text: deltas.join('') });
    expect(call).toMatchObject({ type: 'tool-call', arguments: deltas.join('') });
  });

  it('the Responses encoder repeats the whole text in its done events and terminal response', () => {
    const { sse } = runStream(
      [
        { type: 'response-start', id: 'r', model: 'm' },
        { type: 'text-start', block: 0 },
        ...deltas.map((text) => ({ type: 'text-delta' as const, block: 0, text })),
        { type: 'text-end', block: 0 },
        { type: 'usage', usage: usage({ inputTokens: 1, outputTokens: deltas.length }) },
        { type: 'finish', finish: { reason: 'end_turn', raw: 'end_turn' } },
      ],
      encodeContext(),
    );
    const frames = parseSse(sse);
    const done = frames.find((f) => f.event === 'response.output_text.done')!.data as { text: string };
    const completed = frames.find((f) => f.event === 'response.completed')!.data as { response: { output: { content: { text: string }[] }[] } };
    expect(done.text).toBe(deltas.join(''));
    expect(completed.response.output[0]!.content[0]!.text).toBe(deltas.join(''));
  });
});
