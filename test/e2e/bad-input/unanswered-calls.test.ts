// A Responses `function_call` input item that no `function_call_output` answers, through the official
// OpenAI SDK on all three lanes: refused before any upstream call as OpenAI refuses it (400
// invalid_request_error, "No tool output found for function call <id>.", the call's item named in
// `param`), while the legitimate shapes pass: outputs later in the input, in another order, with
// reasoning between, and a call whose output may be behind an item_reference left for OpenAI.
import OpenAI from 'openai';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODELS, startHarness, type Harness, type UpstreamProtocol } from '../../support/gateway-harness.js';
import { viewOf } from '../../support/upstream-view.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const LANES: UpstreamProtocol[] = ['responses', 'messages', 'chat'];
const user = (text: string): ResponseInputItem => ({ role: 'user', content: text });
const call = (callId: string): ResponseInputItem => ({ type: 'function_call', call_id: callId, name: 'look', arguments: '{"q":"x"}' });
const output = (callId: string): ResponseInputItem => ({ type: 'function_call_output', call_id: callId, output: 'seen ' + callId });
const reasoning: ResponseInputItem = { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Two lookups first.' }] };
const tools: OpenAI.Responses.Tool[] = [{ type: 'function', name: 'look', parameters: { type: 'object', properties: { q: { type: 'string' } } }, strict: false }];

async function refusal(lane: UpstreamProtocol, input: ResponseInputItem[]): Promise<InstanceType<typeof OpenAI.BadRequestError>> {
  const before = h.upstream.received.length;
  const err = await h.openai.responses.create({ model: MODELS[lane].alias, input, tools }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(OpenAI.BadRequestError);
  expect(h.upstream.received).toHaveLength(before);
  return err as InstanceType<typeof OpenAI.BadRequestError>;
}

describe.each(LANES)('the %s lane', (lane) => {
  it('a call left without an output at the end of the input: 400 in OpenAI wording, naming the call item', async () => {
    const err = await refusal(lane, [user('look it up'), call('call_end')]);
    expect(err.status).toBe(400);
    expect(err.error).toMatchObject({ type: 'invalid_request_error', message: 'No tool output found for function call call_end.', param: 'input[1].call_id' });
  });

  it('the first of two calls answered, the second not: the second is named', async () => {
    const err = await refusal(lane, [user('look twice'), reasoning, call('call_a'), call('call_b'), output('call_a')]);
    expect(err.error).toMatchObject({ message: 'No tool output found for function call call_b.', param: 'input[3].call_id' });
  });

  it('outputs later in the input, in another order, with reasoning between: served, both results sent upstream', async () => {
    const before = h.upstream.received.length;
    const res = await h.openai.responses.create({
      model: MODELS[lane].alias,
      input: [user('look twice'), reasoning, call('call_a'), call('call_b'), output('call_b'), output('call_a')],
      tools,
    });
    expect(res.status).toBe('completed');
    const sent = h.upstream.received.slice(before);
    expect(sent).toHaveLength(1);
    const view = viewOf(lane, sent[0]!.body);
    expect(view.toolCalls.map((c) => c.name)).toEqual(['look', 'look']);
    expect(view.toolResults.map((r) => r.text).sort()).toEqual(['seen call_a', 'seen call_b']);
  });
});

describe('a call whose output may be behind an item_reference', () => {
  const input: ResponseInputItem[] = [user('look it up'), call('call_ref'), { type: 'item_reference', id: 'fco_kept_by_openai' }];

  it('is forwarded to a Responses upstream, which resolves its own items', async () => {
    const before = h.upstream.received.length;
    const res = await h.openai.responses.create({ model: MODELS.responses.alias, input, tools });
    expect(res.status).toBe('completed');
    const sent = h.upstream.received.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.body.input).toEqual([
      expect.objectContaining({ role: 'user' }),
      expect.objectContaining({ type: 'function_call', call_id: 'call_ref' }),
      { type: 'item_reference', id: 'fco_kept_by_openai' },
    ]);
  });

  it.each(['messages', 'chat'] as const)('on the %s lane is refused for the reference, which nothing there can resolve', async (lane) => {
    const err = await refusal(lane, input);
    expect(err.error).toMatchObject({ type: 'invalid_request_error', param: 'input[2]' });
    expect(err.message).not.toContain('No tool output');
  });
});
