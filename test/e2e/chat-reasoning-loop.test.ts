// A Chat Completions client's two-turn tool loop with thinking, through a Messages and a Gemini
// upstream whose scripted servers refuse a history whose signature is missing or altered (Anthropic:
// thinking on, the tool-use turn must start with its signed thinking block; Gemini: a signed call must
// come back with its thought signature). The client echoes the assistant message as chat clients do —
// `reasoning_content` plus `reasoning_details` — streamed and not; an edited signature is refused by
// both upstreams (the check is real), dropped details by Gemini (toward Anthropic the gateway then sends
// thinking disabled, as mapping.md §15.26 says).
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODELS, startHarness, type Harness } from '../support/gateway-harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ upstream: { verifyThinking: true } });
});
afterAll(async () => {
  await h?.close();
});

type Assistant = OpenAI.Chat.ChatCompletionMessage & { reasoning_content?: string; reasoning_details?: Record<string, unknown>[] };

const TOOLS: OpenAI.Chat.ChatCompletionTool[] = [
  { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } },
];
// Byte-exact: characters a careless copy would mangle (base64 padding, slashes, plus signs).
const SIGNATURE = 'EqQBCkgIAhABGAIiQL+/sig/with+plus==';

/** One turn, read the way chat clients read it (streamed: accumulating every delta field). */
async function turn(model: string, messages: OpenAI.Chat.ChatCompletionMessageParam[], stream: boolean): Promise<Assistant> {
  const params = { model, messages, tools: TOOLS, reasoning_effort: 'medium' as const };
  if (!stream) return (await h.openai.chat.completions.create(params)).choices[0]!.message as Assistant;
  const message: Assistant = { role: 'assistant', content: null, refusal: null };
  const calls: OpenAI.Chat.ChatCompletionMessageFunctionToolCall[] = [];
  for await (const chunk of await h.openai.chat.completions.create({ ...params, stream: true })) {
    const d = chunk.choices[0]?.delta as (OpenAI.Chat.ChatCompletionChunk.Choice.Delta & { reasoning_content?: string; reasoning_details?: Record<string, unknown>[] }) | undefined;
    if (!d) continue;
    if (d.content) message.content = (message.content ?? '') + d.content;
    if (d.reasoning_content) message.reasoning_content = (message.reasoning_content ?? '') + d.reasoning_content;
    if (d.reasoning_details) message.reasoning_details = [...(message.reasoning_details ?? []), ...d.reasoning_details];
    for (const tc of d.tool_calls ?? []) {
      const c = (calls[tc.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } });
      if (tc.id) c.id = tc.id;
      if (tc.function?.name) c.function.name = tc.function.name;
      if (tc.function?.arguments) c.function.arguments += tc.function.arguments;
    }
  }
  if (calls.length) message.tool_calls = calls;
  return message;
}

function history(first: Assistant, edit: (m: Record<string, unknown>) => void = () => {}): OpenAI.Chat.ChatCompletionMessageParam[] {
  const echoed: Record<string, unknown> = { role: 'assistant', content: first.content, tool_calls: first.tool_calls };
  if (first.reasoning_content) echoed.reasoning_content = first.reasoning_content;
  if (first.reasoning_details) echoed.reasoning_details = structuredClone(first.reasoning_details);
  edit(echoed);
  return [
    { role: 'user', content: 'Weather in Oslo?' },
    echoed as unknown as OpenAI.Chat.ChatCompletionAssistantMessageParam,
    { role: 'tool', tool_call_id: first.tool_calls![0]!.id, content: '-3C' },
  ];
}

async function status(p: Promise<unknown>): Promise<number> {
  return p.then(
    () => 200,
    (e: { status?: number }) => e.status ?? -1,
  );
}

describe.each([
  ['messages', false],
  ['messages', true],
  ['gemini', false],
  ['gemini', true],
] as const)('chat door → %s upstream (streamed: %s): thinking survives a tool loop', (upstream, stream) => {
  const model = MODELS[upstream].alias;

  it('turn two carries the signature back byte-exact, and the upstream accepts it', async () => {
    h.upstream.enqueue({
      kind: 'reply',
      blocks: [
        { type: 'reasoning', text: 'The user wants Oslo weather.', opaque: SIGNATURE },
        { type: 'tool-call', id: 'call_oslo', name: 'get_weather', arguments: '{"city":"Oslo"}' },
      ],
    });
    const first = await turn(model, [{ role: 'user', content: 'Weather in Oslo?' }], stream);
    expect(first.reasoning_content).toBe('The user wants Oslo weather.');
    expect(first.tool_calls).toHaveLength(1);
    const details = first.reasoning_details ?? [];
    expect(details).toHaveLength(1);
    expect(details[0]!.signature ?? details[0]!.data).toBe(SIGNATURE);

    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Cold: -3C.' }] });
    const second = await turn(model, history(first), stream);
    expect(second.content).toBe('Cold: -3C.');
    const sent = h.upstream.received[h.upstream.received.length - 1]!.body as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    if (upstream === 'messages') {
      const assistant = sent.messages[1];
      expect(assistant.content[0]).toEqual({ type: 'thinking', thinking: 'The user wants Oslo weather.', signature: SIGNATURE });
      expect(assistant.content[1]).toMatchObject({ type: 'tool_use', id: 'call_oslo', name: 'get_weather' });
    } else {
      const model = sent.contents.find((c: { role: string }) => c.role === 'model');
      const call = model.parts.find((p: { functionCall?: unknown }) => p.functionCall);
      expect(call.thoughtSignature).toBe(SIGNATURE);
    }
  });

  it('the upstream refuses turn two when the client drops reasoning_details or alters the signature', async () => {
    h.upstream.enqueue({
      kind: 'reply',
      blocks: [
        { type: 'reasoning', text: 'Oslo, again.', opaque: SIGNATURE + 'x' },
        { type: 'tool-call', id: 'call_oslo2', name: 'get_weather', arguments: '{"city":"Oslo"}' },
      ],
    });
    const first = await turn(model, [{ role: 'user', content: 'Weather in Oslo?' }], stream);
    expect(first.reasoning_details).toHaveLength(1);
    const before = h.upstream.received.length;
    const dropped = await status(turn(model, history(first, (m) => delete m.reasoning_details), stream));
    const altered = await status(
      turn(
        model,
        history(first, (m) => {
          const d = (m.reasoning_details as Record<string, unknown>[])[0]!;
          if (typeof d.signature === 'string') d.signature = d.signature.slice(0, -1) + 'y';
          else d.data = String(d.data).slice(0, -1) + 'y';
        }),
        stream,
      ),
    );
    expect(altered).toBe(400);
    expect(h.upstream.received.length).toBe(before + 2);
    if (upstream === 'gemini') {
      // Gemini signed this call: a history without its signature is refused.
      expect(dropped).toBe(400);
    } else {
      // Anthropic: the gateway sees a tool loop with no thinking to replay and sends thinking disabled
      // (mapping.md §15.26) rather than a request the upstream refuses; the refusal of the altered
      // signature shows the upstream's check is on.
      expect(dropped).toBe(200);
      expect((h.upstream.received[before]!.body as { thinking?: unknown }).thinking).toEqual({ type: 'disabled' });
    }
  });
});
