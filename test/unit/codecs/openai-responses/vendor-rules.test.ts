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
