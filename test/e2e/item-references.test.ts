// `item_reference` inputs on the Responses door, with the official OpenAI SDK: references to the
// caller's own earlier output items are resolved from the gateway's store on every route; the ones it
// does not hold are forwarded to OpenAI Responses deployments and refused with a 400 naming input[i]
// anywhere else — and nothing is ever resolved across gateway keys.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODELS, startHarness, type Harness, type UpstreamProtocol } from '../support/gateway-harness.js';
import { viewOf } from '../support/upstream-view.js';

const KEYS = [
  { name: 'alice', key: 'sk-alice-1' },
  { name: 'bob', key: 'sk-bob-1' },
];

let h: Harness;
let alice: OpenAI;
let bob: OpenAI;
beforeAll(async () => {
  h = await startHarness({
    apiKey: KEYS[0]!.key,
    config: () => ({
      auth: { keys: KEYS },
      models: {
        [MODELS.messages.alias]: { provider: 'up-messages', model: MODELS.messages.upstream },
        [MODELS.responses.alias]: { provider: 'up-responses', model: MODELS.responses.upstream },
        [MODELS.chat.alias]: { provider: 'up-chat', model: MODELS.chat.upstream },
        'openai-then-claude': {
          strategy: 'fallback',
          targets: [
            { provider: 'up-responses', model: MODELS.responses.upstream },
            { provider: 'up-messages', model: MODELS.messages.upstream },
          ],
        },
      },
    }),
  });
  alice = h.openai;
  bob = new OpenAI({ baseURL: h.url + '/v1', apiKey: KEYS[1]!.key, maxRetries: 0 });
});
afterAll(async () => {
  await h?.close();
});

const TOOLS: OpenAI.Responses.FunctionTool[] = [
  { type: 'function', name: 'run_command', strict: false, parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } },
];

function lastBody(): Record<string, any> { // eslint-disable-line @typescript-eslint/no-explicit-any
  return h.upstream.received[h.upstream.received.length - 1]!.body;
}

async function create(client: OpenAI, params: OpenAI.Responses.ResponseCreateParamsNonStreaming, stream: boolean): Promise<OpenAI.Responses.Response> {
  if (!stream) return client.responses.create(params);
  return client.responses.stream({ ...params, stream: undefined }).finalResponse();
}

async function refusal(p: Promise<unknown>): Promise<InstanceType<typeof OpenAI.BadRequestError>> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(OpenAI.BadRequestError);
  return err as InstanceType<typeof OpenAI.BadRequestError>;
}

describe.each(['messages', 'chat'] as UpstreamProtocol[])('translated to the %s upstream', (upstream) => {
  const model = MODELS[upstream].alias;

  it.each([false, true])('a tool loop continued by reference: the upstream gets the stored items (streamed: %s)', async (stream) => {
    const first = await create(alice, { model, input: 'Prove that tools work', tools: TOOLS, reasoning: { effort: 'low', summary: 'auto' } }, stream);
    const [rs, fc] = first.output;
    expect(rs?.type).toBe('reasoning');
    expect(fc?.type).toBe('function_call');
    const call = fc as OpenAI.Responses.ResponseFunctionToolCall;
    const second = await create(
      alice,
      {
        model,
        tools: TOOLS,
        reasoning: { effort: 'low', summary: 'auto' },
        input: [
          { role: 'user', content: 'Prove that tools work' },
          { type: 'item_reference', id: rs!.id! },
          { type: 'item_reference', id: call.id! },
          { type: 'function_call_output', call_id: call.call_id, output: 'switchyard-ok' },
        ],
      },
      stream,
    );
    expect(second.output_text).toBe('Tool said: switchyard-ok');
    const view = viewOf(upstream, lastBody());
    expect(view.toolCalls).toEqual([{ id: view.toolResults[0]!.id, name: 'run_command' }]);
    expect(view.toolResults[0]!.text).toBe('switchyard-ok');
    // The reasoning came back in the upstream's own form: Anthropic's signature, Chat's text.
    expect(view.opaque).toEqual([upstream === 'messages' ? 'opaque-messages-1' : 'The user wants proof that tools work; run a harmless shell command.']);
  });

  it('an assistant message by reference, in the bare {id} form', async () => {
    const first = await alice.responses.create({ model, input: 'first question' });
    const msg = first.output[0]!;
    expect(msg.type).toBe('message');
    await alice.responses.create({ model, input: [{ role: 'user', content: 'first question' }, { id: msg.id } as never, { role: 'user', content: 'and then?' }] });
    const view = viewOf(upstream, lastBody());
    expect(view.assistantTexts).toEqual(['You said: first question']);
    expect(view.userTexts).toEqual(['first question', 'and then?']);
  });

  it("another key's items, unknown ids and items of an unstored response: 400 naming input[i]", async () => {
    const stored = await alice.responses.create({ model, input: 'mine' });
    const unstored = await alice.responses.create({ model, input: 'not kept', store: false });
    const before = h.upstream.received.length;
    const cases: [OpenAI, string][] = [
      [bob, stored.output[0]!.id!],
      [alice, 'msg_does_not_exist'],
      [alice, unstored.output[0]!.id!],
    ];
    for (const [client, id] of cases) {
      const err = await refusal(client.responses.create({ model, input: [{ role: 'user', content: 'x' }, { type: 'item_reference', id }] }));
      expect(err.status).toBe(400);
      expect(err.error).toMatchObject({ type: 'invalid_request_error', param: 'input[1]', message: `Item with id '${id}' not found (input[1]).` });
    }
    expect(h.upstream.received.length).toBe(before);
  });
});

describe('plans with OpenAI Responses deployments', () => {
  it('Responses-only: a reference the gateway does not hold is forwarded for OpenAI to resolve', async () => {
    const input = [{ role: 'user' as const, content: 'x' }, { type: 'item_reference' as const, id: 'rs_openai_own' }];
    const answer = await alice.responses.create({ model: MODELS.responses.alias, input });
    expect(answer.status).toBe('completed');
    expect(lastBody().input).toEqual([{ role: 'user', content: 'x' }, { type: 'item_reference', id: 'rs_openai_own' }]);
  });

  it('OpenAI then Anthropic: references reach OpenAI; on a fallback, unknown ones are a 400, known ones are sent as items', async () => {
    const own = { type: 'item_reference' as const, id: 'rs_openai_own' };
    await alice.responses.create({ model: 'openai-then-claude', input: [{ role: 'user', content: 'x' }, own] });
    expect(lastBody().input[1]).toEqual(own);
    h.upstream.enqueue({ kind: 'http-error', status: 503, message: 'overloaded' });
    const before = h.upstream.received.length;
    const fell = await refusal(alice.responses.create({ model: 'openai-then-claude', input: [{ role: 'user', content: 'x' }, own] }));
    expect(fell.error).toMatchObject({ type: 'invalid_request_error', param: 'input[1]' });
    expect(fell.message).toContain('up-messages');
    // OpenAI was tried and failed; Anthropic never got a request it could not be given.
    expect(h.upstream.received.slice(before).map((r) => r.protocol)).toEqual(['responses']);

    // Streamed, so the stored item must be the one the stream's terminal event carried.
    const earlier = await create(alice, { model: MODELS.messages.alias, input: 'first question' }, true);
    const ref = { type: 'item_reference' as const, id: earlier.output[0]!.id! };
    await alice.responses.create({ model: 'openai-then-claude', input: [{ role: 'user', content: 'first question' }, ref, { role: 'user', content: 'next' }] });
    // OpenAI gets the item itself (it never stored it), as the caller received it.
    // (The SDK's stream helper adds `parsed` to text parts on its side; it was never on the wire.)
    const asReceived = JSON.parse(JSON.stringify(earlier.output[0], (k, v: unknown) => (k === 'parsed' ? undefined : v)));
    expect(lastBody().input[1]).toEqual(asReceived);

    h.upstream.enqueue({ kind: 'http-error', status: 503, message: 'overloaded' });
    const after = await alice.responses.create({ model: 'openai-then-claude', input: [{ role: 'user', content: 'first question' }, ref, { role: 'user', content: 'again' }] });
    expect(after.output_text).toBe('You said: again');
    expect(viewOf('messages', lastBody()).assistantTexts).toEqual(['You said: first question']);
  });
});
