// The stored-response encoding: two JSON lines (conversation, then response and input items), so a
// continuation parses only what it uses; records of the one-line layout still read.
import { describe, expect, it } from 'vitest';
import { decodeStoredConversation, decodeStoredResponse, encodeStoredResponse, type StoredResponse } from '../../../src/responses-store/stored-response.js';

const record: StoredResponse = {
  id: 'resp_1',
  owner: 'alice',
  createdAt: 1_763_700_000,
  producer: { provider: 'openai', model: 'gpt-x', protocol: 'responses' },
  turns: [
    { role: 'user', parts: [{ type: 'text', text: 'line one\nline two\r\n"quoted"' }] },
    { role: 'assistant', parts: [{ type: 'text', text: 'answer\n' }] },
  ],
  response: { id: 'resp_1', object: 'response', output: [{ id: 'msg_1', type: 'message', content: [{ type: 'output_text', text: 'answer\n' }] }] },
  inputItems: [{ id: 'msg_in', type: 'message', role: 'user', content: [{ type: 'input_text', text: 'line one\nline two' }] }],
};

describe('stored response encoding', () => {
  it('round-trips whole, and the conversation alone from the first line (texts with newlines included)', () => {
    const bytes = encodeStoredResponse(record);
    expect(bytes.toString().split('\n')).toHaveLength(2);
    expect(decodeStoredResponse(bytes)).toEqual(record);
    const { response: _r, inputItems: _i, ...conversation } = record;
    expect(decodeStoredConversation(bytes)).toEqual(conversation);
    // A view into a larger buffer (as stores hand them out) reads the same.
    const padded = Buffer.concat([Buffer.from('xx'), bytes, Buffer.from('yy')]);
    expect(decodeStoredConversation(padded.subarray(2, 2 + bytes.length))).toEqual(conversation);
  });

  it('reads the one-line layout of version 1; an unknown version is absent, not misread', () => {
    const v1 = Buffer.from(JSON.stringify({ v: 1, id: 'resp_1', owner: 'alice', created_at: 1, response: { id: 'resp_1' }, input_items: [], turns: [] }));
    expect(decodeStoredResponse(v1)).toMatchObject({ id: 'resp_1', owner: 'alice', createdAt: 1, response: { id: 'resp_1' }, inputItems: [], turns: [] });
    expect(decodeStoredConversation(v1)).toMatchObject({ id: 'resp_1', turns: [] });
    const future = Buffer.from(JSON.stringify({ v: 9, id: 'resp_1' }) + '\n{}');
    expect(decodeStoredResponse(future)).toBeUndefined();
    expect(decodeStoredConversation(future)).toBeUndefined();
  });
});
