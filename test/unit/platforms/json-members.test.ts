import { describe, expect, it } from 'vitest';
import { topLevelMember, withFirstMembers, withFirstMembersWithout, withMemberValue, withoutMember } from '../../../src/platforms/json-members.js';

describe('json-members: top-level edits on the text', () => {
  it('removes a member wherever it sits, leaving every other byte as it was', () => {
    expect(withoutMember('{"model":"m","max_tokens":5}', 'model')).toBe('{"max_tokens":5}');
    expect(withoutMember('{"a":1, "model" : "m" , "b":[1,{"model":"inner"}]}', 'model')).toBe('{"a":1, "b":[1,{"model":"inner"}]}');
    expect(withoutMember('{"a":{"model":"x"},"model":"m"}', 'model')).toBe('{"a":{"model":"x"}}');
    expect(withoutMember('{"model":"m"}', 'model')).toBe('{}');
    expect(withoutMember('{"a":"\\"model\\":1","b":2}', 'model')).toBe('{"a":"\\"model\\":1","b":2}');
    const text = '{"messages":[{"role":"user","content":[{"type":"text","text":"x","cache_control":{"type":"ephemeral"}}]}],"model":"m","unknown_field":1.50,"stream":true}';
    expect(JSON.parse(withoutMember(text, 'model'))).toEqual({ ...JSON.parse(text), model: undefined });
    expect(withoutMember(text, 'model')).toContain('"unknown_field":1.50');
  });

  it('finds values of every JSON type and skips nested keys of the same name', () => {
    const text = '{"n":-1.5e3,"t":true,"z":null,"o":{"k":"}"},"arr":["]",{"k":1}],"k":"top"}';
    const m = topLevelMember(text, 'k')!;
    expect(text.slice(m.valueStart, m.valueEnd)).toBe('"top"');
    expect(topLevelMember(text, 'missing')).toBeUndefined();
  });

  it('adds members first and replaces a value', () => {
    expect(withFirstMembers('{"a":1}', '"v":"x"')).toBe('{"v":"x","a":1}');
    expect(withFirstMembers('{ }', '"v":"x"')).toBe('{"v":"x" }');
    expect(withMemberValue('{"model":"gpt","a":1}', 'model', '"dep"')).toBe('{"model":"dep","a":1}');
    expect(withMemberValue('{"a":1}', 'model', '"dep"')).toBe('{"model":"dep","a":1}');
  });

  it('adds members first and removes one in a single pass, wherever the removed one sits', () => {
    const v = '"v":1';
    expect(withFirstMembersWithout('{"model":"m","a":1}', v, 'model')).toBe('{"v":1,"a":1}');
    expect(withFirstMembersWithout('{"a":1, "model":"m" ,"b":2}', v, 'model')).toBe('{"v":1,"a":1, "b":2}');
    expect(withFirstMembersWithout('{"a":1,"model":"m"}', v, 'model')).toBe('{"v":1,"a":1}');
    expect(withFirstMembersWithout('{ "a":1 , "model":"m" }', v, 'model')).toBe('{"v":1, "a":1 }');
    expect(withFirstMembersWithout('{"model":"m"}', v, 'model')).toBe('{"v":1}');
    expect(withFirstMembersWithout('{"a":1}', v, 'model')).toBe('{"v":1,"a":1}');
    for (const text of ['{"model":"m","a":1}', '{"a":1, "model":"m" ,"b":2}', '{"a":1,"model":"m"}', '{ "a":1 , "model":"m" }', '{"model":"m"}']) {
      const parsed = JSON.parse(withFirstMembersWithout(text, v, 'model')) as Record<string, unknown>;
      const expected = JSON.parse(text) as Record<string, unknown>;
      delete expected.model;
      expect(parsed).toEqual({ v: 1, ...expected });
    }
  });
});
