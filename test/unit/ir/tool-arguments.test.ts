import { partialParse } from '@anthropic-ai/sdk/_vendor/partial-json-parser/parser';
import { describe, expect, it } from 'vitest';
import { repairTruncatedJson, toolInput } from '../../../src/ir/tool-arguments.js';

describe('toolInput', () => {
  it.each<[string, unknown]>([
    ['{"city":"Paris","n":2}', { city: 'Paris', n: 2 }],
    ['', {}],
    ['   ', {}],
    ['[1,2]', { value: [1, 2] }],
    ['"just text"', { value: 'just text' }],
    ['null', { value: null }],
    ['7', { value: 7 }],
    ["{'single': 'quotes'}", {}],
    ['not json at all', {}],
    ['{"a":1}}', {}],
    ['{"cmd":"ls -la","args":["-R"', { cmd: 'ls -la', args: ['-R'] }],
    ['{"cmd":"rm -rf /home/us', {}],
  ])('%j → %j', (args, expected) => {
    expect(toolInput(args)).toEqual(expected);
  });
});

describe('repairTruncatedJson agrees with the SDK partial-JSON reader on every prefix', () => {
  const documents = [
    '{"city": "Paris", "unit": "celsius", "days": [1, 2, 3], "nested": {"deep": [{"x": -1.5e3}, true, null, "a\\"b\\\\"]}}',
    '{"path":"src/a.ts","edits":[{"old":"const a = 1;\\n","new":"const a = 2;\\n"}],"dry_run":false}',
    '[{"a": "x"}, {"b": [null, false]}, 42]',
    '{"text": "unicode ✓ \\u00e9 🎉", "empty": {}, "list": []}',
  ];
  for (const doc of documents) {
    it(doc.slice(0, 40), () => {
      for (let cut = 1; cut < doc.length; cut++) {
        const prefix = doc.slice(0, cut);
        let sdk: unknown;
        try {
          sdk = partialParse(prefix);
        } catch {
          continue; // the SDK has no answer for this prefix either
        }
        expect(repairTruncatedJson(prefix), `prefix ${JSON.stringify(prefix)}`).toEqual(sdk);
      }
    });
  }

  it('refuses text that is not truncated JSON', () => {
    expect(repairTruncatedJson('{"a": 1]')).toBeUndefined();
    expect(repairTruncatedJson('hello')).toBeUndefined();
    expect(repairTruncatedJson('{"a": @')).toBeUndefined();
  });
});
