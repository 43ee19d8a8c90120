// The pass-through request body: the caller's text with only the top-level `model` value spliced in
// when nothing else changes (formatting, key order, big numbers and unknown fields kept exactly), and
// the re-serialised object whenever splicing could be wrong (settings to apply, a repeated model key,
// a body that is not the parsed text any more).
import { describe, expect, it } from 'vitest';
import { passthroughBody, type PassthroughFields } from '../../../src/drivers/passthrough-body.js';
import { parseJsonBody } from '../../../src/http/json-body.js';

const FIELDS: PassthroughFields = { maxTokens: 'max_tokens', effortParent: 'output_config' };
const forward = (text: string, defaults = {}, overrides = {}) =>
  passthroughBody(parseJsonBody(text) as Record<string, unknown>, 'up-model', defaults, overrides, FIELDS);

describe('passthroughBody', () => {
  it('splices the model into the caller’s own text: everything else byte for byte', () => {
    const text = '{\n  "2": "integer-like key stays second",\n  "model" : "alias\\u0031",\n  "seed": 12345678901234567890,\n  "x": 1.0, "metadata": {"model": "nested stays"},\n  "messages": [{"role": "user", "content": "say \\"model\\": \\"no\\""}]\n}';
    expect(forward(text)).toBe(text.replace('"alias\\u0031"', '"up-model"'));
    expect(JSON.parse(forward(text))).toMatchObject({ model: 'up-model', metadata: { model: 'nested stays' } });
  });

  it('the same JSON as re-serialising the object, for an ordinary body', () => {
    const body = { model: 'alias', max_tokens: 100, messages: [{ role: 'user', content: 'hi ✓ "quoted"' }], stream: true, unknown_field: { a: [1, 2] } };
    const spliced = forward(JSON.stringify(body));
    expect(spliced).toBe(JSON.stringify({ ...body, model: 'up-model' }));
  });

  it('falls back to the object when settings apply, and applies them', () => {
    const text = '{"model":"alias","messages":[]}';
    expect(JSON.parse(forward(text, { maxTokens: 50 }))).toEqual({ model: 'up-model', messages: [], max_tokens: 50 });
    expect(JSON.parse(forward(text, {}, { temperature: 0.2 }))).toEqual({ model: 'up-model', messages: [], temperature: 0.2 });
  });

  it('a repeated model key (plain or escaped): the object, whose model is the only one', () => {
    for (const text of ['{"model":"a","messages":[],"model":"b"}', '{"model":"a","mod\\u0065l":"b"}']) {
      const out = forward(text);
      expect(out).toBe(JSON.stringify({ ...(JSON.parse(text) as object), model: 'up-model' }));
      expect(out.match(/"model"/g)).toHaveLength(1);
    }
  });

  it('a body changed after parsing (a key added or removed) is re-serialised', () => {
    const added = parseJsonBody('{"model":"alias","a":1}') as Record<string, unknown>;
    added.b = 2;
    expect(passthroughBody(added, 'up', {}, {}, FIELDS)).toBe('{"model":"up","a":1,"b":2}');
    const removed = parseJsonBody('{"model":"alias","a":1}') as Record<string, unknown>;
    delete removed.a;
    expect(passthroughBody(removed, 'up', {}, {}, FIELDS)).toBe('{"model":"up"}');
    // A copy (item references expanded, a continuation spliced) is a different object.
    const copy = { ...(parseJsonBody('{"model":"alias", "a":1}') as Record<string, unknown>) };
    expect(passthroughBody(copy, 'up', {}, {}, FIELDS)).toBe('{"model":"up","a":1}');
  });

  it('no top-level model string (missing, not a string, only nested): the object', () => {
    expect(forward('{"a":{"model":"x"}}')).toBe('{"a":{"model":"x"},"model":"up-model"}');
    expect(forward('{"model":null, "a":1}')).toBe('{"model":"up-model","a":1}');
  });
});
