import { describe, expect, it } from 'vitest';
import { foldEvents } from '../../../src/ir/fold-events.js';
import { decodeEnvelope, encodeEnvelope, isEnvelope } from '../../../src/ir/reasoning-envelope.js';
import { resultToEvents } from '../../../src/ir/result-to-events.js';
import { fromCallerId, isPortableId, toCallerId } from '../../../src/ir/tool-ids.js';
import { toolNameIndex, wireToolName } from '../../../src/ir/tool-names.js';
import type { IrEvent, ReasoningCarry } from '../../../src/ir/types.js';

describe('tool ids', () => {
  it('keeps portable ids and reversibly re-encodes the rest', () => {
    expect(toCallerId('toolu_01A09q90qw90lq917835lq9')).toBe('toolu_01A09q90qw90lq917835lq9');
    expect(toCallerId('call_Wq2Lx7')).toBe('call_Wq2Lx7');
    for (const id of ['functions.get_weather:0', 'a|b', 'x'.repeat(80), 'syc_looks_like_ours']) {
      const caller = toCallerId(id);
      expect(caller).not.toBe(id);
      expect(/^[a-zA-Z0-9_-]+$/.test(caller)).toBe(true);
      expect(fromCallerId(caller)).toBe(id);
    }
    expect(isPortableId('')).toBe(false);
  });
});

describe('tool names', () => {
  it('flattens namespaces and shortens long names deterministically and reversibly per request', () => {
    expect(wireToolName('spawn', 'multi_agent_v1', 64)).toBe('multi_agent_v1__spawn');
    const long = 'mcp.server.' + 'x'.repeat(80);
    const w = wireToolName(long, undefined, 64);
    expect(w.length).toBeLessThanOrEqual(64);
    expect(/^[a-zA-Z0-9_-]+$/.test(w)).toBe(true);
    expect(wireToolName(long, undefined, 64)).toBe(w);
    const index = toolNameIndex([{ name: long, kind: 'function' }, { name: 'spawn', namespace: 'ns', kind: 'function' }], 64);
    expect(index.get(w)!.name).toBe(long);
    expect(index.get('ns__spawn')!.namespace).toBe('ns');
  });
});

describe('reasoning envelope', () => {
  it('round-trips every family byte-exactly and ignores foreign blobs', () => {
    const carries: ReasoningCarry[] = [
      { family: 'anthropic', block: { type: 'thinking', thinking: 'a "b"\n ✓', signature: 'EqoBCkgIBhAB==' } },
      { family: 'anthropic', block: { type: 'redacted_thinking', data: 'EmwKAhgB' } },
      { family: 'openai', id: 'rs_1', encryptedContent: 'gAAAAB', summary: [{ type: 'summary_text', text: 's' }] },
      { family: 'chat', text: 'thoughts' },
    ];
    for (const c of carries) {
      const env = encodeEnvelope(c);
      expect(isEnvelope(env)).toBe(true);
      expect(decodeEnvelope(env)).toEqual(c);
    }
    expect(decodeEnvelope('gAAAAABo-native')).toBeUndefined();
    expect(decodeEnvelope('sy1.not-base64-json!')).toBeUndefined();
  });
});

describe('foldEvents / resultToEvents', () => {
  it('are inverses', () => {
    const events: IrEvent[] = [];
    const result = {
      id: 'r1',
      model: 'm',
      content: [
        { type: 'reasoning' as const, text: 'think', carry: { family: 'chat' as const, text: 'think' } },
        { type: 'text' as const, text: 'hello' },
        { type: 'tool-call' as const, id: 'c1', name: 'f', arguments: '{"a":1}', kind: 'function' as const },
      ],
      finish: { reason: 'tool_use' as const, raw: 'tool_use' },
      usage: { inputTokens: 10, cacheReadTokens: 2, cacheWriteTokens: 0, outputTokens: 5, reasoningTokens: 1 },
    };
    resultToEvents(result, (e) => events.push(e));
    expect(foldEvents(events)).toEqual(result);
  });
});
