// The answer cut to the caller's output limit when the upstream's minimum is higher (mapping.md §15.54).
import { describe, expect, it } from 'vitest';
import { CHARS_PER_TOKEN } from '../../../src/ir/estimate-tokens.js';
import { foldEvents } from '../../../src/ir/fold-events.js';
import { capOutput } from '../../../src/ir/output-cap.js';
import type { IrEvent, Usage } from '../../../src/ir/types.js';

const usage: Usage = { inputTokens: 12, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 16, reasoningTokens: 0 };

function run(maxTokens: number, events: IrEvent[]): IrEvent[] {
  const out: IrEvent[] = [];
  const push = capOutput(maxTokens, (ev) => out.push(ev));
  for (const ev of events) push(ev);
  return out;
}

const text = (...pieces: string[]): IrEvent[] => [
  { type: 'response-start', id: 'r1', model: 'm' },
  { type: 'text-start', block: 0 },
  ...pieces.map((t): IrEvent => ({ type: 'text-delta', block: 0, text: t })),
  { type: 'text-end', block: 0 },
  { type: 'usage', usage },
  { type: 'finish', finish: { reason: 'max_tokens', raw: 'max_output_tokens' } },
];

describe('capOutput', () => {
  it('cuts text at maxTokens × CHARS_PER_TOKEN characters, across deltas; usage unchanged', () => {
    const out = run(5, text('The quick brown ', 'fox jumps over ', 'the lazy dog and keeps running.'));
    const result = foldEvents(out);
    expect(result.content).toEqual([{ type: 'text', text: 'The quick brown fox jumps over '.slice(0, 5 * CHARS_PER_TOKEN) }]);
    expect(result.finish.reason).toBe('max_tokens');
    expect(result.usage).toEqual(usage);
  });

  it('an answer within the limit passes untouched, its own finish kept', () => {
    const events = text('Hi.');
    events[events.length - 1] = { type: 'finish', finish: { reason: 'end_turn', raw: 'completed' } };
    expect(run(5, events)).toEqual(events);
  });

  it('a cut makes the finish max_tokens, whatever the upstream said', () => {
    const events = text('x'.repeat(40));
    events[events.length - 1] = { type: 'finish', finish: { reason: 'end_turn', raw: 'completed' } };
    expect(foldEvents(run(2, events)).finish).toEqual({ reason: 'max_tokens', raw: 'completed' });
  });

  it('never splits a surrogate pair', () => {
    const out = run(1, text('ab😀cd'));
    expect(foldEvents(out).content).toEqual([{ type: 'text', text: 'ab' }]);
  });

  it('drops blocks after the budget is spent, and cuts a tool call’s arguments (the end carries what was sent)', () => {
    const events: IrEvent[] = [
      { type: 'response-start', id: 'r1', model: 'm' },
      { type: 'text-start', block: 0 },
      { type: 'text-delta', block: 0, text: 'Run:' },
      { type: 'text-end', block: 0 },
      { type: 'tool-call-start', block: 1, id: 'call_1', name: 'sh', kind: 'function' },
      { type: 'tool-call-delta', block: 1, argumentsDelta: '{"command":"ls -la"}' },
      { type: 'tool-call-end', block: 1, arguments: '{"command":"ls -la"}' },
      { type: 'reasoning-start', block: 2 },
      { type: 'reasoning-delta', block: 2, text: 'more' },
      { type: 'reasoning-end', block: 2 },
      { type: 'usage', usage },
      { type: 'finish', finish: { reason: 'tool_use', raw: 'completed' } },
    ];
    const out = run(4, events); // 12 characters: 'Run:' (4) + 'sh' (2) + 6 of the arguments
    expect(out.some((e) => e.type === 'reasoning-start')).toBe(false);
    expect(out.find((e) => e.type === 'tool-call-end')).toEqual({ type: 'tool-call-end', block: 1, arguments: '{"comm' });
    expect(foldEvents(out).finish.reason).toBe('max_tokens');
  });

  it('arguments that arrive only with the end are cut there', () => {
    const out = run(2, [
      { type: 'tool-call-start', block: 0, id: 'call_1', name: 'sh', kind: 'function' },
      { type: 'tool-call-end', block: 0, arguments: '{"command":"ls"}' },
      { type: 'finish', finish: { reason: 'tool_use', raw: 'completed' } },
    ]);
    expect(out[1]).toEqual({ type: 'tool-call-end', block: 0, arguments: '{"co' });
  });
});
