// The stored-response encoding (versions 3 and 4): texts the request already had (the body as sent;
// version 3: the response as returned), this answer's parts and, for a continuation, the earlier turns,
// then a JSON head. The conversation and the input items are derived when read, the same on every read;
// version 4 (translated answers) renders its response again from the parts. Records of the two earlier
// layouts still read.
import { describe, expect, it } from 'vitest';
import { decodeRequest } from '../../../src/codecs/openai-responses/decode-request.js';
import { encodeResult } from '../../../src/codecs/openai-responses/encode-result.js';
import { encodeEnvelope } from '../../../src/ir/reasoning-envelope.js';
import { decodeResponsesResult } from '../../../src/drivers/openai-responses/decode-result.js';
import type { IrResult, OutputPart, Turn } from '../../../src/ir/types.js';
import {
  decodeStoredConversation,
  decodeStoredResponse,
  encodeAnswerRecord,
  encodeStoredResponseV2,
  type AnswerRecord,
  type StoredResponse,
} from '../../../src/responses-store/stored-response.js';

const previous: Turn[] = [
  { role: 'user', parts: [{ type: 'text', text: 'earlier question' }] },
  { role: 'assistant', parts: [{ type: 'reasoning', text: 'thought', signature: 'sig==' } as OutputPart, { type: 'text', text: 'earlier answer' }] },
];
// Pretty-printed (raw newlines), multi-byte characters, an item with an id and items without one,
// a system item (hoisted into the system prompt: not a turn).
const requestJson = JSON.stringify(
  {
    model: 'gpt-x',
    instructions: 'be brief',
    input: [
      { role: 'developer', content: 'no emojis' },
      { role: 'user', content: 'line one\nline two\r\n"quoted" é ✓ 🙂' },
      { id: 'fc_keep', type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{"a":"ü"}' },
      { type: 'function_call_output', call_id: 'call_1', output: '42 ☃' },
    ],
  },
  null,
  2,
);
const answer: OutputPart[] = [{ type: 'text', text: 'answer ✓\n' }];
const response = { id: 'resp_1', object: 'response', output: [{ id: 'msg_1', type: 'message', content: [{ type: 'output_text', text: 'answer ✓\n' }] }] };
const mine = decodeRequest(JSON.parse(requestJson), []).turns;

function record(prev: Turn[]): AnswerRecord {
  return {
    id: 'resp_1',
    owner: 'alice',
    createdAt: 1_763_700_000,
    producer: { provider: 'openai', model: 'gpt-x', protocol: 'responses' },
    previous: prev,
    turns: [...prev, ...mine, { role: 'assistant', parts: answer }],
    answer,
    requestJson,
    responseJson: JSON.stringify(response, null, 1),
    outputItemIds: ['msg_1'],
  };
}

describe('stored response encoding', () => {
  it('derives the whole conversation (earlier turns, this request decoded again, the answer) exactly', () => {
    for (const prev of [[], previous]) {
      const r = record(prev);
      const bytes = encodeAnswerRecord(r);
      const conversation = { id: r.id, owner: r.owner, createdAt: r.createdAt, producer: r.producer, turns: r.turns };
      expect(decodeStoredConversation(bytes)).toEqual(conversation);
      // A view into a larger buffer (as stores hand them out) reads the same.
      const padded = Buffer.concat([Buffer.from('xx'), bytes, Buffer.from('yy')]);
      expect(decodeStoredConversation(padded.subarray(2, 2 + bytes.length))).toEqual(conversation);
      const whole = decodeStoredResponse(padded.subarray(2, 2 + bytes.length))!;
      expect(whole.response).toEqual(response);
      expect(whole.turns).toEqual(r.turns);
    }
  });

  it('an answer without parts (a Responses upstream, as is) is decoded from the stored response when read', () => {
    const upstream = {
      id: 'resp_up',
      object: 'response',
      status: 'completed',
      output: [
        { id: 'rs_up', type: 'reasoning', summary: [], encrypted_content: 'opaque' },
        { id: 'msg_up', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'answer ✓', annotations: [] }] },
        { id: 'fc_up', type: 'function_call', call_id: 'call_9', name: 'lookup', arguments: '{"q":1}', status: 'completed' },
      ],
      usage: { input_tokens: 3, output_tokens: 4, total_tokens: 7 },
    };
    const request = { model: 'gpt-x', input: 'hi', tools: [{ type: 'function', name: 'lookup', parameters: { type: 'object', properties: {} } }] };
    const parts = decodeResponsesResult(upstream, decodeRequest(request, [])).content;
    expect(parts.map((p) => p.type)).toEqual(['reasoning', 'text', 'tool-call']);
    // With earlier turns and without (then the record starts with the missing parts' `null`).
    for (const prev of [previous, []]) {
      const r: AnswerRecord = { ...record(prev), id: 'resp_up', answer: undefined, requestJson: JSON.stringify(request), responseJson: JSON.stringify(upstream) };
      delete r.answer;
      const bytes = encodeAnswerRecord(r);
      expect(decodeStoredConversation(bytes)!.turns).toEqual([...prev, { role: 'user', parts: [{ type: 'text', text: 'hi' }] }, { role: 'assistant', parts }]);
      expect(decodeStoredResponse(bytes)!.response).toEqual(upstream);
    }
  });

  it('keeps the texts, not objects: the body and the response as they were, each once', () => {
    const r = record([]);
    const text = encodeAnswerRecord(r).toString('utf8');
    expect(text).toContain(requestJson);
    expect(text).toContain(r.responseJson!.toString());
    expect(text.split('line one').length - 1).toBe(1);
  });

  it('a response given as the bytes sent is copied as is: the record is the same as from its text', () => {
    for (const prev of [[], previous]) {
      const r = record(prev);
      const fromText = Buffer.from(encodeAnswerRecord(r));
      expect(encodeAnswerRecord({ ...r, responseJson: Buffer.from(r.responseJson!) })).toEqual(fromText);
      // Large records (a buffer of their own) too.
      const big = { ...r, requestJson: JSON.stringify({ model: 'm', input: 'é'.repeat(40_000) }) };
      const bigText = Buffer.from(encodeAnswerRecord(big));
      expect(encodeAnswerRecord({ ...big, responseJson: Buffer.from(big.responseJson!) })).toEqual(bigText);
      expect(decodeStoredResponse(bigText)!.response).toEqual(response);
    }
  });

  it('lists the input items with their ids, generated ids the same on every read and unique', () => {
    const bytes = encodeAnswerRecord(record([]));
    const items = decodeStoredResponse(bytes)!.inputItems;
    expect(items.map((i) => i.type)).toEqual(['message', 'message', 'function_call', 'function_call_output']);
    expect(items[1]).toMatchObject({ role: 'user', content: [{ type: 'input_text', text: 'line one\nline two\r\n"quoted" é ✓ 🙂' }] });
    expect(items[2]!.id).toBe('fc_keep');
    expect(items[0]!.id).toMatch(/^msg_[0-9a-f]{24}$/);
    expect(items[3]!.id).toMatch(/^item_[0-9a-f]{24}$/);
    expect(decodeStoredResponse(bytes)!.inputItems).toEqual(items);
    expect(new Set(items.map((i) => i.id)).size).toBe(4);
    // Another response's generated ids differ.
    const other = decodeStoredResponse(encodeAnswerRecord({ ...record([]), id: 'resp_2' }))!.inputItems;
    expect(other[0]!.id).not.toBe(items[0]!.id);
  });

  it('records written one after another (shared slabs, one of its own when large) each read back whole', () => {
    const written = Array.from({ length: 60 }, (_, i) => {
      const big = i % 20 === 7 ? 'ü'.repeat(40_000) : 'x'.repeat(i * 97);
      const r: AnswerRecord = { ...record(i % 2 ? previous : []), id: `resp_${i}`, owner: i === 3 ? 'o'.repeat(5000) : 'alice', requestJson: JSON.stringify({ model: 'm', input: big }), answer: [{ type: 'text', text: big + '🙂' }] };
      r.turns = [...r.previous, { role: 'user', parts: [{ type: 'text', text: big }] }, { role: 'assistant', parts: r.answer! }];
      return { r, bytes: encodeAnswerRecord(r) };
    });
    for (const { r, bytes } of written) {
      expect(decodeStoredConversation(bytes)).toEqual({ id: r.id, owner: r.owner, createdAt: r.createdAt, producer: r.producer, turns: r.turns });
      expect(decodeStoredResponse(bytes)!.response).toEqual(response);
    }
  });

  it('a stored body the codec refuses reads as absent, not as an error', () => {
    const bytes = encodeAnswerRecord({ ...record([]), requestJson: JSON.stringify({ model: 'm', input: 42 }) });
    expect(decodeStoredConversation(bytes)).toBeUndefined();
  });

  it('reads the layouts of versions 2 and 1; an unknown version is absent, not misread', () => {
    const v2: StoredResponse = {
      id: 'resp_1',
      owner: 'alice',
      createdAt: 1,
      producer: { provider: 'openai', model: 'gpt-x', protocol: 'responses' },
      turns: [{ role: 'user', parts: [{ type: 'text', text: 'a\nb' }] }],
      response: { id: 'resp_1', output: [] },
      inputItems: [{ id: 'msg_in', type: 'message', role: 'user', content: [{ type: 'input_text', text: 'a\nb' }] }],
    };
    const bytes2 = encodeStoredResponseV2(v2);
    expect(decodeStoredResponse(bytes2)).toEqual(v2);
    expect(decodeStoredConversation(bytes2)).toEqual({ id: 'resp_1', owner: 'alice', createdAt: 1, producer: v2.producer, turns: v2.turns });
    const v1 = Buffer.from(JSON.stringify({ v: 1, id: 'resp_1', owner: 'alice', created_at: 1, response: { id: 'resp_1' }, input_items: [], turns: [] }));
    expect(decodeStoredResponse(v1)).toMatchObject({ id: 'resp_1', owner: 'alice', createdAt: 1, response: { id: 'resp_1' }, inputItems: [], turns: [] });
    expect(decodeStoredConversation(v1)).toMatchObject({ id: 'resp_1', turns: [] });
    const future = Buffer.from(JSON.stringify({ v: 9, id: 'resp_1' }) + '\n{}');
    expect(decodeStoredResponse(future)).toBeUndefined();
    expect(decodeStoredConversation(future)).toBeUndefined();
    // A later version of the texts-then-head layout.
    const laterTexts = Buffer.from('null{}\n' + JSON.stringify({ v: 5, id: 'resp_1', owner: 'alice', created_at: 1, n: [0, 4, 2] }));
    expect(decodeStoredResponse(laterTexts)).toBeUndefined();
    expect(decodeStoredConversation(laterTexts)).toBeUndefined();
  });
});

describe('version 4: a translated answer, its response rendered again when read', () => {
  // What the gateway rendered for a translated answer (the codec's encodeResult): echoed request fields
  // (instructions, tools, reasoning summary wish), reasoning with an Anthropic carry, text beyond ASCII,
  // a tool call, an incomplete finish, usage.
  const request = {
    model: 'claude-alias',
    instructions: 'be brief ✓',
    input: [{ role: 'user', content: 'weather in Zürich? 🙂' }],
    tools: [{ type: 'function', name: 'weather', description: 'look it up', parameters: { type: 'object', properties: { city: { type: 'string' } } } }],
    reasoning: { effort: 'high', summary: 'auto' },
    metadata: { team: 'ops' },
    temperature: 0.3,
  };
  const requestText = JSON.stringify(request, null, 2);
  const result: IrResult = {
    id: 'up_1',
    model: 'claude-x',
    content: [
      { type: 'reasoning', text: 'think ✓', carry: { family: 'anthropic', block: { type: 'thinking', thinking: 'think ✓', signature: 'sig==' } } },
      { type: 'text', text: 'Let me look "that" up.\n' },
      { type: 'tool-call', id: 'toolu_1', name: 'weather', arguments: '{"city":"Zürich"}', kind: 'function' },
    ],
    finish: { reason: 'max_tokens', raw: 'max_tokens' },
    usage: { inputTokens: 30, cacheReadTokens: 5, cacheWriteTokens: 0, outputTokens: 12, reasoningTokens: 4 },
  };
  const completedAt = 1_763_700_042;
  const ctx = { request: decodeRequest(JSON.parse(requestText), []), responseId: 'resp_tr4', createdAt: 1_763_700_000, warnings: [], completedAt };
  const sent = encodeResult(result, ctx);
  const mineTurns = decodeRequest(JSON.parse(requestText), []).turns;

  function translated(prev: Turn[]): AnswerRecord {
    return {
      id: 'resp_tr4',
      owner: 'alice',
      createdAt: 1_763_700_000,
      producer: { provider: 'anthropic', model: 'claude-x', protocol: 'messages' },
      previous: prev,
      turns: [...prev, ...mineTurns, { role: 'assistant', parts: result.content }],
      answer: result.content,
      rendered: { finish: result.finish, usage: result.usage, completedAt },
      requestJson: requestText,
      outputItemIds: ['rs_tr4_0', 'msg_tr4_1', 'fc_tr4_2'],
    };
  }

  it('keeps the parts and the body, not the response text; reads back the response the caller got and the conversation', () => {
    expect(JSON.parse(sent)).toMatchObject({ status: 'incomplete', completed_at: completedAt, instructions: 'be brief ✓', output: [{ type: 'reasoning' }, { type: 'message' }, { type: 'function_call' }] });
    for (const prev of [[], previous]) {
      const r = translated(prev);
      const bytes = encodeAnswerRecord(r);
      const text = bytes.toString('utf8');
      expect(text).not.toContain('"object":"response"');
      expect(text.split('be brief ✓').length - 1).toBe(1);
      expect(bytes.length).toBeLessThan(Buffer.byteLength(requestText) + Buffer.byteLength(sent));
      const whole = decodeStoredResponse(bytes)!;
      expect(whole.response).toEqual(JSON.parse(sent));
      expect(whole.turns).toEqual(r.turns);
      expect(decodeStoredConversation(bytes)).toEqual({ id: r.id, owner: r.owner, createdAt: r.createdAt, producer: r.producer, turns: r.turns });
      // The reasoning item's envelope (what a caller echoes back) is the carry's, as the caller got it.
      expect((whole.response.output as { encrypted_content?: string }[])[0]!.encrypted_content).toBe(encodeEnvelope(result.content[0]!.type === 'reasoning' ? result.content[0]!.carry! : { family: 'chat', text: '' }));
      expect(decodeStoredResponse(bytes)!.inputItems.map((i) => i.type)).toEqual(['message']);
    }
  });

  it('the response needs no parse of the conversation; a body the codec refuses reads as absent', () => {
    const bad = encodeAnswerRecord({ ...translated([]), requestJson: JSON.stringify({ model: 'm', input: 42 }) });
    expect(decodeStoredResponse(bad)).toBeUndefined();
    expect(decodeStoredConversation(bad)).toBeUndefined();
  });

  it('records of both versions written one after another each read back whole', () => {
    const written = Array.from({ length: 40 }, (_, i) => {
      const r: AnswerRecord = i % 2 ? { ...translated(i % 4 === 1 ? previous : []), id: `resp_${i}` } : { ...record([]), id: `resp_${i}` };
      return { r, bytes: encodeAnswerRecord(r) };
    });
    for (const { r, bytes } of written) {
      const back = decodeStoredResponse(bytes)!;
      expect(back.id).toBe(r.id);
      expect(back.turns).toEqual(r.turns);
      expect(back.response).toEqual(r.rendered ? JSON.parse(encodeResult(result, { ...ctx, responseId: r.id })) : response);
    }
  });
});
