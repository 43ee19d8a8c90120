import { describe, expect, it } from 'vitest';
import { checkVendorRules } from '../../../../src/codecs/openai-responses/vendor-rules.js';
import type { ResponsesRequestBody } from '../../../../src/protocols/openai-responses/request.js';

const output = { type: 'function_call_output', call_id: 'call_1', output: '42' };
const body = (input: unknown[]): ResponsesRequestBody => ({ model: 'm', input } as unknown as ResponsesRequestBody);

describe('Responses vendor rules: tool outputs and the calls they answer', () => {
  it('refuses an output with no earlier call, naming the item', () => {
    expect(() => checkVendorRules(body([{ role: 'user', content: 'hi' }, output]))).toThrow(
      expect.objectContaining({ param: 'input[1].call_id', message: 'No tool call found for function call output with call_id call_1.' }),
    );
  });

  it('lets an output through when an unresolved item reference may be its call (OpenAI resolves it)', () => {
    expect(() => checkVendorRules(body([{ role: 'user', content: 'hi' }, { type: 'item_reference', id: 'fc_1' }, output]))).not.toThrow();
    expect(() => checkVendorRules(body([{ role: 'user', content: 'hi' }, { id: 'fc_1' }, output]))).not.toThrow();
  });

  it('lets an output through on a continuation (previous_response_id holds the call)', () => {
    expect(() => checkVendorRules({ ...body([output]), previous_response_id: 'resp_1' } as ResponsesRequestBody)).not.toThrow();
  });
});

describe('Responses vendor rules: calls that no output answers', () => {
  const user = { role: 'user', content: 'hi' };
  const call = (id: string) => ({ type: 'function_call', call_id: id, name: 'look', arguments: '{}' });
  const out = (id: string) => ({ type: 'function_call_output', call_id: id, output: 'ok' });

  it('refuses a call still unanswered at the end of the input, in OpenAI wording', () => {
    expect(() => checkVendorRules(body([user, call('call_1')]))).toThrow(
      expect.objectContaining({ kind: 'invalid_request', param: 'input[1].call_id', message: 'No tool output found for function call call_1.' }),
    );
  });

  it('refuses it on a continuation too: a call in the input needs its output in the input', () => {
    expect(() => checkVendorRules({ ...body([out('call_0'), call('call_1')]), previous_response_id: 'resp_1' } as ResponsesRequestBody)).toThrow(
      expect.objectContaining({ param: 'input[1].call_id' }),
    );
  });

  it('accepts outputs later in the input, in any order, with reasoning between', () => {
    const reasoning = { type: 'reasoning', id: 'rs_1', summary: [] };
    expect(() => checkVendorRules(body([user, reasoning, call('call_1'), call('call_2'), reasoning, out('call_2'), out('call_1')]))).not.toThrow();
  });

  it('leaves the check to OpenAI when an unresolved item reference may hold the output', () => {
    expect(() => checkVendorRules(body([user, call('call_1'), { type: 'item_reference', id: 'fco_1' }]))).not.toThrow();
    expect(() => checkVendorRules(body([user, call('call_1'), { id: 'fco_1' }, user]))).not.toThrow();
  });
});
