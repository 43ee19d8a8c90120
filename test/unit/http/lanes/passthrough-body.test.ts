// A continuation forwarded to a Responses deployment that never saw the earlier answer: the stored
// conversation goes inline in front of the caller's input, with the conversation's developer messages,
// and the caller's own tool outputs answer the history's last calls (none is closed with a stand-in).
import { describe, expect, it } from 'vitest';
import { decodeRequest, withEarlierSystem } from '../../../../src/codecs/openai-responses/decode-request.js';
import { continuationBody } from '../../../../src/http/lanes/passthrough-body.js';
import type { RouteTarget } from '../../../../src/router/model-table.js';
import type { StoredConversation } from '../../../../src/responses-store/stored-response.js';

const target = { provider: { name: 'openai', protocol: 'responses' }, model: 'gpt-x', deployment: 'openai/gpt-x' } as unknown as RouteTarget;

const previous: StoredConversation = {
  id: 'resp_1',
  owner: 'k',
  createdAt: 1,
  system: [{ type: 'text', text: 'You are a coding agent.' }],
  turns: [
    { role: 'user', parts: [{ type: 'text', text: 'Run ls.' }] },
    { role: 'assistant', parts: [{ type: 'tool-call', id: 'call_1', name: 'shell', arguments: '{"cmd":"ls"}', kind: 'function' }] },
  ],
};

describe('continuationBody', () => {
  it('inlines the developer messages and the history; the caller’s output answers the last call', () => {
    const body = { model: 'gpt-x', store: false, previous_response_id: 'resp_1', input: [{ type: 'function_call_output', call_id: 'call_1', output: 'a b' }] };
    const out = continuationBody(body, previous, target);
    expect(out.previous_response_id).toBeUndefined();
    expect(out.input).toEqual([
      { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'You are a coding agent.' }] },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Run ls.' }] },
      { type: 'function_call', call_id: 'call_1', name: 'shell', arguments: '{"cmd":"ls"}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'a b' },
    ]);
  });

  it('forwards the id unchanged to the deployment that produced the answer', () => {
    const body = { model: 'gpt-x', previous_response_id: 'resp_1', input: 'next' };
    expect(continuationBody(body, { ...previous, producer: { provider: 'openai', model: 'gpt-x', protocol: 'responses' } }, target)).toBe(body);
  });
});

describe('withEarlierSystem', () => {
  it('keeps this request’s instructions first, then the earlier developer messages, then its own', () => {
    const ir = decodeRequest({ model: 'm', instructions: 'Be brief.', input: [{ role: 'developer', content: 'Now.' }, { role: 'user', content: 'hi' }] }, []);
    expect(withEarlierSystem(ir, [{ type: 'text', text: 'Earlier.' }]).map((p) => p.text)).toEqual(['Be brief.', 'Earlier.', 'Now.']);
    const bare = decodeRequest({ model: 'm', input: [{ role: 'developer', content: 'Now.' }] }, []);
    expect(withEarlierSystem(bare, [{ type: 'text', text: 'Earlier.' }]).map((p) => p.text)).toEqual(['Earlier.', 'Now.']);
  });
});
