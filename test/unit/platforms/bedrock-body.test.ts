import { describe, expect, it } from 'vitest';
import { countTokensBody, invokeBody } from '../../../src/platforms/bedrock-body.js';
import { findMembers, removeMembers } from '../../../src/platforms/json-members.js';

describe('json-members', () => {
  it('finds top-level members only, skipping strings and nested values', () => {
    const text = '{"a":{"model":"inner","x":[1,{"stream":true}]},"s":"has \\"model\\": inside","model":"m","stream":true}';
    const found = findMembers(text, ['model', 'stream', 'absent'])!;
    expect(text.slice(found.members[0]!.start, found.members[0]!.end)).toBe('"model":"m"');
    expect(text.slice(found.members[1]!.start, found.members[1]!.end)).toBe('"stream":true');
    expect(found.members[2]).toBeUndefined();
    expect(found.close).toBe(text.length - 1);
  });

  it('removes first, middle and last members with their commas, whitespace tolerated', () => {
    const text = '{ "model" : "m" , "max_tokens": 5,\n "stream": false }';
    const f = findMembers(text, ['model', 'stream'])!;
    expect(JSON.parse(removeMembers(text, [f.members[0]!, f.members[1]!]))).toEqual({ max_tokens: 5 });
    const only = '{"model":"m"}';
    expect(removeMembers(only, [findMembers(only, ['model'])!.members[0]!])).toBe('{}');
  });

  it('is undefined for text that is not an object', () => {
    expect(findMembers('[1,2]', ['model'])).toBeUndefined();
    expect(findMembers('{"a":', ['model'])).toBeUndefined();
  });
});

describe('the Bedrock invoke body', () => {
  it('drops model and stream, adds anthropic_version and the betas, keeps every other byte', () => {
    const caller =
      '{"model":"claude-x","max_tokens":1024,"messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"EqQB/+=="}]}],"system":[{"type":"text","text":"s","cache_control":{"type":"ephemeral"}}],"unknown_field":{"a":[1,2]},"stream":true}';
    const out = invokeBody(caller, 'interleaved-thinking-2025-05-14, context-1m-2025-08-07');
    expect(out).toBe(
      '{"anthropic_version":"bedrock-2023-05-31","anthropic_beta":["interleaved-thinking-2025-05-14","context-1m-2025-08-07"],"max_tokens":1024,"messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"EqQB/+=="}]}],"system":[{"type":"text","text":"s","cache_control":{"type":"ephemeral"}}],"unknown_field":{"a":[1,2]}}',
    );
  });

  it("keeps a caller's own anthropic_beta and replaces an anthropic_version", () => {
    const out = JSON.parse(invokeBody('{"anthropic_beta":["mine"],"anthropic_version":"2023-06-01","model":"m","max_tokens":1,"messages":[]}', 'header-beta'));
    expect(out).toEqual({ anthropic_version: 'bedrock-2023-05-31', anthropic_beta: ['mine'], max_tokens: 1, messages: [] });
  });

  it('adds max_tokens for CountTokens only when absent, and wraps the body in base64', () => {
    const counted = invokeBody('{"model":"m","messages":[{"role":"user","content":"hi"}]}', undefined, true);
    expect(JSON.parse(counted)).toEqual({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 1, messages: [{ role: 'user', content: 'hi' }] });
    const envelope = JSON.parse(countTokensBody(counted)) as { input: { invokeModel: { body: string } } };
    expect(Buffer.from(envelope.input.invokeModel.body, 'base64').toString('utf8')).toBe(counted);
  });

  it('handles an object that held only the dropped members', () => {
    expect(invokeBody('{"model":"m","stream":false}', undefined)).toBe('{"anthropic_version":"bedrock-2023-05-31"}');
  });
});
