import { readFileSync } from 'node:fs';
import { APIError } from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { messagesCodec } from '../../../../src/codecs/anthropic-messages/index.js';
import { estimateInputTokens } from '../../../../src/ir/estimate-tokens.js';
import { foldEvents } from '../../../../src/ir/fold-events.js';
import { decodeEnvelope } from '../../../../src/ir/reasoning-envelope.js';
import { resultToEvents } from '../../../../src/ir/result-to-events.js';
import type { IrEvent, IrResult, ReasoningCarry, Usage } from '../../../../src/ir/types.js';
import {
  checkGrammar,
  encodeContext,
  expectedMessage,
  parseSse,
  runStream,
  sdkFinalMessage,
  sdkStream,
  type Step,
} from './stream-support.js';

const fixture = (name: string) => readFileSync(new URL(`../../../fixtures/caller/anthropic-messages/${name}`, import.meta.url), 'utf8');

const usage = (u: Partial<Usage>): Usage => ({ inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0, ...u });
const start = (u?: Partial<Usage>): IrEvent => ({ type: 'response-start', id: 'resp_upstream_1', model: 'gpt-5-upstream', usage: u && usage(u) });
const finish = (reason: IrResult['finish']['reason'], stopSequence?: string): IrEvent => ({
  type: 'finish',
  finish: { reason, raw: reason, stopSequence },
});

/** Streams the steps, checks the grammar, and checks the SDK's accumulation equals encodeResult. */
async function agree(steps: Step[], chunk = 64) {
  const { sse } = runStream(steps);
  const frames = parseSse(sse);
  const shape = checkGrammar(frames);
  const expected = expectedMessage(steps);
  expect(await sdkFinalMessage(sse, chunk)).toEqual(expected);
  return { sse, frames, shape, expected: expected as { content: any[]; [k: string]: any } };
}

// messages.md §12(a)
const textReply: Step[] = [
  start({ inputTokens: 21, outputTokens: 1 }),
  'ping',
  { type: 'text-start', block: 0 },
  { type: 'text-delta', block: 0, text: 'Hi! How can' },
  { type: 'text-delta', block: 0, text: ' I help today?' },
  { type: 'text-end', block: 0 },
  { type: 'usage', usage: usage({ inputTokens: 21, outputTokens: 12 }) },
  finish('end_turn'),
];

// messages.md §12(b): an Anthropic upstream's thinking, text and a streamed tool call
const anthropicThinking: ReasoningCarry = {
  family: 'anthropic',
  block: { type: 'thinking', thinking: 'The user wants Paris weather; call the tool.', signature: 'EqoBCkgIBhABGAIiQ…' },
};
const thinkingTextTool: Step[] = [
  start({ inputTokens: 2560, cacheReadTokens: 2048, outputTokens: 3 }),
  'ping',
  { type: 'reasoning-start', block: 0 },
  { type: 'reasoning-delta', block: 0, text: 'The user wants Paris weather;' },
  { type: 'reasoning-delta', block: 0, text: ' call the tool.' },
  { type: 'reasoning-end', block: 0, carry: anthropicThinking },
  { type: 'text-start', block: 1 },
  { type: 'text-delta', block: 1, text: 'Let me check the current weather' },
  { type: 'text-delta', block: 1, text: ' in Paris.' },
  { type: 'text-end', block: 1 },
  { type: 'tool-call-start', block: 2, id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_weather', kind: 'function' },
  { type: 'tool-call-delta', block: 2, argumentsDelta: '' },
  { type: 'tool-call-delta', block: 2, argumentsDelta: '{"city": "Pa' },
  { type: 'tool-call-delta', block: 2, argumentsDelta: 'ris", "unit": "cel' },
  { type: 'tool-call-delta', block: 2, argumentsDelta: 'sius"}' },
  { type: 'tool-call-end', block: 2 },
  { type: 'usage', usage: usage({ inputTokens: 2560, cacheReadTokens: 2048, outputTokens: 96 }) },
  finish('tool_use'),
];

describe('messages stream encoder: the §12 scenarios, byte for byte', () => {
  it('(a) text-only reply', async () => {
    const ctx = encodeContext('claude-sonnet-4-5-20250929', 'msg_01HkT3yWq9cZ8n2bVx4Pj6Lm');
    const { sse, finished } = runStream(textReply, ctx);
    expect(sse).toBe(fixture('text-reply.sse'));
    expect(finished).toBe(true);
    expect(checkGrammar(parseSse(sse))).toEqual({ blocks: ['text'], end: 'stop' });
    expect(await sdkFinalMessage(sse)).toEqual(expectedMessage(textReply, ctx));
  });

  it('(b) thinking → text → tool_use', async () => {
    const { sse } = runStream(thinkingTextTool);
    expect(sse).toBe(fixture('thinking-text-tool-use.sse'));
    expect(checkGrammar(parseSse(sse))).toEqual({ blocks: ['thinking', 'text', 'tool_use'], end: 'stop' });
    const expected = JSON.parse(fixture('thinking-text-tool-use.message.json'));
    expect(expectedMessage(thinkingTextTool)).toEqual(expected);
    // The SDK accumulates the same message from any chunking of the bytes.
    for (const chunk of [1, 7, 4096]) expect(await sdkFinalMessage(sse, chunk)).toEqual(expected);
  });

  it('echoes the caller model and the gateway id, never the upstream ones', () => {
    const frames = parseSse(runStream(textReply, encodeContext('my-alias', 'msg_gw_1')).sse);
    expect(frames[0]!.data.message.model).toBe('my-alias');
    expect(frames[0]!.data.message.id).toBe('msg_gw_1');
  });
});

describe('messages stream encoder: reasoning', () => {
  const openai: ReasoningCarry = {
    family: 'openai',
    id: 'rs_68a1',
    encryptedContent: 'gAAAAABo-opaque',
    summary: [
      { type: 'summary_text', text: 'Plan the answer' },
      { type: 'summary_text', text: 'Check units' },
    ],
  };

  it('a foreign (OpenAI) carry rides in the signature of a thinking block, summary parts joined by a blank line', async () => {
    const steps: Step[] = [
      start(),
      { type: 'reasoning-start', block: 0 },
      { type: 'reasoning-part-break', block: 0 }, // nothing emitted yet: no leading "\n\n"
      { type: 'reasoning-delta', block: 0, text: 'Plan the answer' },
      { type: 'reasoning-part-break', block: 0 },
      { type: 'reasoning-delta', block: 0, text: 'Check units' },
      { type: 'reasoning-end', block: 0, carry: openai },
      { type: 'text-start', block: 1 },
      { type: 'text-delta', block: 1, text: '42 °C' },
      { type: 'text-end', block: 1 },
      { type: 'usage', usage: usage({ inputTokens: 30, outputTokens: 50, reasoningTokens: 40 }) },
      finish('end_turn'),
    ];
    const { frames, shape, expected } = await agree(steps);
    expect(shape.blocks).toEqual(['thinking', 'text']);
    const thinkingDeltas = frames.filter((f) => f.data.delta?.type === 'thinking_delta').map((f) => f.data.delta.thinking);
    expect(thinkingDeltas).toEqual(['Plan the answer', '\n\n', 'Check units']);
    const block = expected.content[0];
    expect(block.thinking).toBe('Plan the answer\n\nCheck units');
    expect(decodeEnvelope(block.signature)).toEqual(openai);
    expect(expected.usage.output_tokens_details).toEqual({ thinking_tokens: 40 });
    const md = frames.find((f) => f.event === 'message_delta')!;
    expect(md.data.usage.output_tokens_details).toEqual({ thinking_tokens: 40 });

    // The client sends the block back verbatim: the carry comes back byte-exact.
    const ir = messagesCodec.decodeRequest(
      { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'q' }, { role: 'assistant', content: expected.content }] },
      [],
    );
    expect(ir.turns[1]!.parts[0]).toEqual({ type: 'reasoning', text: 'Plan the answer\n\nCheck units', carry: openai });
  });

  it('reasoning without text becomes a complete redacted_thinking block carrying the envelope', async () => {
    const bare: ReasoningCarry = { ...openai, summary: [] };
    const steps: Step[] = [
      start(),
      { type: 'reasoning-start', block: 0 },
      { type: 'reasoning-end', block: 0, carry: bare },
      { type: 'tool-call-start', block: 1, id: 'call_abc', name: 'lookup', kind: 'function' },
      { type: 'tool-call-delta', block: 1, argumentsDelta: '{"q":"x"}' },
      { type: 'tool-call-end', block: 1 },
      finish('tool_use'),
    ];
    const { frames, expected } = await agree(steps);
    expect(frames[1]!.data.content_block.type).toBe('redacted_thinking');
    expect(frames[2]!.event).toBe('content_block_stop');
    expect(decodeEnvelope(expected.content[0].data)).toEqual(bare);
  });

  it('native Anthropic carries come back native: redacted data, and thinking whose text arrived only in the carry', async () => {
    const steps: Step[] = [
      start(),
      { type: 'reasoning-start', block: 0 },
      { type: 'reasoning-end', block: 0, carry: { family: 'anthropic', block: { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix' } } },
      { type: 'reasoning-start', block: 1 },
      { type: 'reasoning-end', block: 1, carry: anthropicThinking },
      { type: 'text-start', block: 2 },
      { type: 'text-delta', block: 2, text: 'Done.' },
      { type: 'text-end', block: 2 },
      finish('end_turn'),
    ];
    const { frames, expected } = await agree(steps);
    expect(frames[1]!.data.content_block).toEqual({ type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix' });
    expect(expected.content.slice(0, 2)).toEqual([
      { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix' },
      { type: 'thinking', thinking: anthropicThinking.block.type === 'thinking' ? anthropicThinking.block.thinking : '', signature: 'EqoBCkgIBhABGAIiQ…' },
    ]);
  });

  it('reasoning text without a carry is signed with a chat envelope of that text', async () => {
    const steps: Step[] = [
      start(),
      { type: 'reasoning-start', block: 0 },
      { type: 'reasoning-delta', block: 0, text: 'deepseek thoughts' },
      { type: 'reasoning-end', block: 0 },
      { type: 'reasoning-start', block: 1 },
      { type: 'reasoning-end', block: 1 }, // empty and nothing to carry: no block at all
      { type: 'text-start', block: 2 },
      { type: 'text-delta', block: 2, text: 'answer' },
      { type: 'text-end', block: 2 },
      finish('end_turn'),
    ];
    const { shape, expected } = await agree(steps);
    expect(shape.blocks).toEqual(['thinking', 'text']);
    expect(decodeEnvelope(expected.content[0].signature)).toEqual({ family: 'chat', text: 'deepseek thoughts' });
  });
});

describe('messages stream encoder: tool calls', () => {
  it('two parallel calls get their own sequential blocks; IR block numbers and empty blocks do not leak', async () => {
    const steps: Step[] = [
      start({ inputTokens: 100, cacheWriteTokens: 60 }),
      { type: 'text-start', block: 3 },
      { type: 'text-delta', block: 3, text: '' },
      { type: 'text-end', block: 3 },
      { type: 'tool-call-start', block: 4, id: 'call_A', name: 'get_weather', kind: 'function' },
      { type: 'tool-call-delta', block: 4, argumentsDelta: '{"city":' },
      { type: 'tool-call-delta', block: 4, argumentsDelta: '"Paris"}' },
      { type: 'tool-call-end', block: 4, arguments: '{"city":"Paris"}' },
      { type: 'tool-call-start', block: 9, id: 'call_B', name: 'get_time', kind: 'function' },
      { type: 'tool-call-end', block: 9, arguments: '{"tz":"Europe/Paris"}' },
      { type: 'tool-call-start', block: 10, id: 'call_C', name: 'ping', kind: 'function' },
      { type: 'tool-call-end', block: 10 },
      { type: 'usage', usage: usage({ inputTokens: 100, cacheWriteTokens: 60, outputTokens: 20 }) },
      finish('tool_use'),
    ];
    const { frames, shape, expected } = await agree(steps);
    expect(shape.blocks).toEqual(['tool_use', 'tool_use', 'tool_use']);
    expect(frames.filter((f) => f.event === 'content_block_start').map((f) => f.data.index)).toEqual([0, 1, 2]);
    // The call whose arguments came only at the end gets them as one input_json_delta.
    const second = frames.filter((f) => f.data.index === 1 && f.event === 'content_block_delta');
    expect(second.map((f) => f.data.delta.partial_json)).toEqual(['{"tz":"Europe/Paris"}']);
    expect(expected.content.map((b) => b.input)).toEqual([{ city: 'Paris' }, { tz: 'Europe/Paris' }, {}]);
    expect(expected.usage).toEqual({ input_tokens: 40, cache_creation_input_tokens: 60, cache_read_input_tokens: 0, output_tokens: 20 });
    expect(expected.stop_reason).toBe('tool_use');
  });

  it('a custom (free-text) tool input is streamed as the JSON of {"input": text}', async () => {
    const patch = '*** Begin Patch\n*** Update File: a.ts\n-const a = "x";\n+const a = \'y\'; // ✓ \\ done\n*** End Patch';
    const steps: Step[] = [
      start(),
      { type: 'tool-call-start', block: 0, id: 'call_patch', name: 'apply_patch', kind: 'custom' },
      { type: 'tool-call-delta', block: 0, argumentsDelta: patch.slice(0, 20) },
      { type: 'tool-call-delta', block: 0, argumentsDelta: '' },
      { type: 'tool-call-delta', block: 0, argumentsDelta: patch.slice(20, 57) },
      { type: 'tool-call-delta', block: 0, argumentsDelta: patch.slice(57) },
      { type: 'tool-call-end', block: 0 },
      { type: 'tool-call-start', block: 1, id: 'call_patch2', name: 'apply_patch', kind: 'custom' },
      { type: 'tool-call-end', block: 1, arguments: 'whole "input"' },
      { type: 'tool-call-start', block: 2, id: 'call_patch3', name: 'apply_patch', kind: 'custom' },
      { type: 'tool-call-end', block: 2 },
      finish('tool_use'),
    ];
    const { frames, expected } = await agree(steps, 5);
    const first = frames.filter((f) => f.data.index === 0 && f.event === 'content_block_delta').map((f) => f.data.delta.partial_json);
    expect(first[0]!.startsWith('{"input":"')).toBe(true);
    expect(first[first.length - 1]).toBe('"}');
    expect(JSON.parse(first.join(''))).toEqual({ input: patch });
    expect(expected.content.map((b) => b.input)).toEqual([{ input: patch }, { input: 'whole "input"' }, { input: '' }]);
  });

  it('closes an open block before message_delta when finish arrives mid-block', async () => {
    const steps: Step[] = [
      start(),
      { type: 'text-start', block: 0 },
      { type: 'text-delta', block: 0, text: 'partial' },
      { type: 'tool-call-start', block: 1, id: 'call_X', name: 'write', kind: 'function' },
      { type: 'tool-call-delta', block: 1, argumentsDelta: '{"path":"a.txt","body":"unfinished' },
      finish('max_tokens'),
    ];
    const { shape, expected } = await agree(steps);
    expect(shape).toEqual({ blocks: ['text', 'tool_use'], end: 'stop' });
    expect(expected.stop_reason).toBe('max_tokens');
    // Truncated arguments: the complete values survive, the cut-off string does not (as in the SDK).
    expect(expected.content[1].input).toEqual({ path: 'a.txt' });
  });

  it('closes an open thinking block with its signature when finish arrives before reasoning-end', async () => {
    const steps: Step[] = [
      start(),
      { type: 'reasoning-start', block: 0 },
      { type: 'reasoning-delta', block: 0, text: 'cut short' },
      finish('max_tokens'),
    ];
    const { expected, shape } = await agree(steps);
    expect(shape.blocks).toEqual(['thinking']);
    expect(decodeEnvelope(expected.content[0].signature)).toEqual({ family: 'chat', text: 'cut short' });
  });
});

describe('messages stream encoder: lifecycle, errors and pings', () => {
  it('an error mid-stream ends the stream with an error event and no message_stop; later events are ignored', async () => {
    const steps: Step[] = [
      start(),
      { type: 'text-start', block: 0 },
      { type: 'text-delta', block: 0, text: 'Hel' },
      { type: 'error', error: { kind: 'overloaded', message: 'Overloaded' } },
      { type: 'text-delta', block: 0, text: 'lo' },
      finish('end_turn'),
      'ping',
    ];
    const { sse, frames, finished } = runStream(steps);
    expect(finished).toBe(true);
    const parsed = parseSse(sse);
    expect(checkGrammar(parsed).end).toBe('error');
    expect(parsed.map((f) => f.event)).toEqual(['message_start', 'content_block_start', 'content_block_delta', 'error']);
    expect(frames[frames.length - 1]).toBe('event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n');
    const err = await sdkStream(sse).finalMessage().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(APIError);
    expect((err as APIError).type).toBe('overloaded_error');
  });

  it('a context overflow mid-stream says "prompt is too long"', () => {
    const { frames } = runStream([start(), { type: 'error', error: { kind: 'context_overflow', message: 'input exceeds the context window' } }]);
    const data = JSON.parse(frames[1]!.split('data: ')[1]!);
    expect(data.error).toEqual({ type: 'invalid_request_error', message: 'prompt is too long: input exceeds the context window' });
  });

  it('an error before anything else is a lone error frame; unknown kinds are api_error', () => {
    const { frames, finished } = runStream([{ type: 'error', error: { kind: 'weird', message: 'boom' } }]);
    expect(finished).toBe(true);
    expect(frames).toEqual(['event: error\ndata: {"type":"error","error":{"type":"api_error","message":"boom"}}\n\n']);
  });

  it('pings only between message_start and the end', () => {
    const { frames } = runStream(['ping', start(), 'ping', finish('end_turn'), 'ping']);
    expect(parseSse(frames.join('')).map((f) => f.event)).toEqual(['message_start', 'ping', 'message_delta', 'message_stop']);
  });

  it('emits message_start first (estimated input) when an event precedes response-start, and never repeats it', async () => {
    const steps: Step[] = [
      { type: 'text-start', block: 0 },
      { type: 'text-delta', block: 0, text: 'early' },
      start({ inputTokens: 5 }),
      { type: 'text-end', block: 0 },
      finish('stop_sequence', '</done>'),
    ];
    const { sse } = runStream(steps);
    const frames = parseSse(sse);
    checkGrammar(frames);
    expect(frames.filter((f) => f.event === 'message_start')).toHaveLength(1);
    const estimate = estimateInputTokens(encodeContext().request);
    expect(estimate).toBeGreaterThan(0);
    expect(frames[0]!.data.message.usage).toEqual({ input_tokens: estimate, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 });
    const md = frames.find((f) => f.event === 'message_delta')!;
    expect(md.data.delta).toEqual({ stop_reason: 'stop_sequence', stop_sequence: '</done>' });
    const final = (await sdkFinalMessage(sse)) as { stop_sequence: string; content: unknown[] };
    expect(final.stop_sequence).toBe('</done>');
    expect(final.content).toEqual([{ type: 'text', text: 'early' }]);
  });

  it('an upstream that counts only at the end (OpenAI): message_start estimates the input, message_delta and the SDK final message are exact (mapping.md §15.53)', async () => {
    const ctx = encodeContext();
    ctx.request.turns = [{ role: 'user', parts: [{ type: 'text', text: 'Summarise the incident report in three bullet points, most severe first.' }] }];
    const estimate = estimateInputTokens(ctx.request);
    const steps: Step[] = [
      start(),
      { type: 'text-start', block: 0 },
      { type: 'text-delta', block: 0, text: 'Done.' },
      { type: 'text-end', block: 0 },
      { type: 'usage', usage: usage({ inputTokens: 30, cacheReadTokens: 8, outputTokens: 3 }) },
      finish('end_turn'),
    ];
    const { sse } = runStream(steps, ctx);
    const frames = parseSse(sse);
    expect(frames[0]!.data.message.usage).toEqual({ input_tokens: estimate, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 });
    const md = frames.find((f) => f.event === 'message_delta')!;
    expect(md.data.usage).toEqual({ input_tokens: 22, cache_creation_input_tokens: 0, cache_read_input_tokens: 8, output_tokens: 3 });
    const final = (await sdkFinalMessage(sse)) as { usage: Record<string, unknown> };
    expect(final.usage).toMatchObject({ input_tokens: 22, cache_read_input_tokens: 8, output_tokens: 3 });
  });

  it('an upstream that counts at the start (Anthropic) keeps its own figures in message_start', () => {
    const frames = parseSse(runStream([start({ inputTokens: 40, cacheReadTokens: 10 }), finish('end_turn')]).sse);
    expect(frames[0]!.data.message.usage).toEqual({ input_tokens: 30, cache_creation_input_tokens: 0, cache_read_input_tokens: 10, output_tokens: 0 });
  });

  it('gives blocks whose start event is missing their own start frame, closing the previous block', async () => {
    const steps: Step[] = [
      start(),
      { type: 'text-start', block: 0 },
      { type: 'text-delta', block: 0, text: 'before' },
      { type: 'reasoning-delta', block: 1, text: 'orphan thought' },
      { type: 'text-delta', block: 2, text: 'after' },
      finish('end_turn'),
    ];
    const { sse } = runStream(steps);
    const frames = parseSse(sse);
    expect(checkGrammar(frames).blocks).toEqual(['text', 'thinking', 'text']);
    const sig = frames.find((f) => f.data.delta?.type === 'signature_delta')!;
    expect(decodeEnvelope(sig.data.delta.signature)).toEqual({ family: 'chat', text: 'orphan thought' });
    const final = (await sdkFinalMessage(sse)) as { content: { type: string }[] };
    expect(final.content.map((b) => b.type)).toEqual(['text', 'thinking', 'text']);
  });

  it('escapes text safely: quotes, newlines, U+2028, astral characters', async () => {
    const tricky = 'line1\nline2\r\n"quoted" \\ back \u2028 sep 🎉 data: event: x';
    const steps: Step[] = [start(), { type: 'text-start', block: 0 }, { type: 'text-delta', block: 0, text: tricky }, { type: 'text-end', block: 0 }, finish('end_turn')];
    const { expected } = await agree(steps, 3);
    expect(expected.content).toEqual([{ type: 'text', text: tricky }]);
  });

  it.each([
    ['context_overflow', 'model_context_window_exceeded'],
    ['refusal', 'refusal'],
    ['pause_turn', 'pause_turn'],
    ['other', 'end_turn'],
  ] as const)('finish %s → stop_reason %s in both modes', async (reason, stopReason) => {
    const steps: Step[] = [start(), { type: 'text-start', block: 0, refusal: reason === 'refusal' }, { type: 'text-delta', block: 0, text: 'x' }, { type: 'text-end', block: 0 }, finish(reason)];
    const { expected } = await agree(steps);
    expect(expected.stop_reason).toBe(stopReason);
  });

  it('a complete result replayed as events streams to exactly what encodeResult answers', async () => {
    const result: IrResult = {
      id: 'resp_1',
      model: 'upstream-model',
      content: [
        { type: 'reasoning', text: 'The user wants Paris weather; call the tool.', carry: anthropicThinking },
        { type: 'reasoning', text: '', carry: { family: 'openai', id: 'rs_2', encryptedContent: 'gAAAA', summary: [] } },
        { type: 'text', text: 'Checking.' },
        { type: 'tool-call', id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}', kind: 'function' },
        { type: 'tool-call', id: 'toolu_2', name: 'apply_patch', arguments: 'patch body', kind: 'custom' },
      ],
      finish: { reason: 'tool_use', raw: 'tool_use' },
      usage: usage({ inputTokens: 900, cacheReadTokens: 800, cacheWriteTokens: 50, outputTokens: 70, reasoningTokens: 30 }),
    };
    const events: IrEvent[] = [];
    resultToEvents(result, (e) => events.push(e));
    const ctx = encodeContext();
    const { sse } = runStream(events, ctx);
    checkGrammar(parseSse(sse));
    const direct = JSON.parse(messagesCodec.encodeResult(result, ctx));
    expect(await sdkFinalMessage(sse)).toEqual(direct);
    expect(JSON.parse(messagesCodec.encodeResult(foldEvents(events), ctx))).toEqual(direct);
  });
});
