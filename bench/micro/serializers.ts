// Serialisation on the encode side: what the encoders do today against JSON.stringify of the same
// object and against fast-json-stringify compiled from the protocol schemas (issue 14 item 2, issue 10
// item 7). Realistic payloads: the bench's ≈200-token answer as a result body, and text deltas of a
// 50-event stream (the bulk of every stream). Every variant's output is checked equal (parsed) to
// today's before anything is timed. A micro-benchmark, not a test: it prints, it asserts nothing else.
//
//   node --import tsx bench/micro/serializers.ts                 # ns/op, median of 7 rounds
//   node --import tsx bench/micro/serializers.ts --list               # the variants' names
//   node --import tsx bench/micro/serializers.ts --only NAME --n N   # one variant N times (for
//       valgrind --tool=callgrind: instructions per op = (I(N) − I(0)) / N, repeatable under load)
//
// Each frame or body goes through Buffer.byteLength, as a socket write would: V8 concatenation builds
// ropes that are only flattened there, so leaving it out would flatter the template variants.
import fastJson from 'fast-json-stringify';
import { Type } from '@sinclair/typebox';
import { messagesCodec } from '../../src/codecs/anthropic-messages/index.js';
import { resultToMessage } from '../../src/codecs/anthropic-messages/encode-result.js';
import { responsesCodec } from '../../src/codecs/openai-responses/index.js';
import { sseFrame } from '../../src/codecs/sse.js';
import type { EncodeContext } from '../../src/codecs/types.js';
import type { IrEvent, IrResult, Usage } from '../../src/ir/types.js';
import { MessageResponse } from '../../src/protocols/anthropic-messages/response.js';
import { parseFlags } from '../cli-flags.js';
import { ANSWER_TEXT } from '../corpus.js';
import { requestBody } from '../request-bodies.js';
import { splitText } from '../upstream-replies.js';

const usage: Usage = { inputTokens: 612, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 204, reasoningTokens: 0 };
const result: IrResult = { id: 'up_1', model: 'claude-bench', content: [{ type: 'text', text: ANSWER_TEXT }], finish: { reason: 'end_turn', raw: 'end_turn' }, usage };
// A tool-using answer too: thinking (native carry), text, a tool call; usage with every optional member.
const toolResult: IrResult = {
  id: 'up_2',
  model: 'claude-bench',
  content: [
    { type: 'reasoning', text: 'The user wants the p99 cause; check the replica first.', carry: { family: 'anthropic', block: { type: 'thinking', thinking: 'x', signature: 'EqoBCkgIBhABGAIiQ'.repeat(8) } } },
    { type: 'text', text: ANSWER_TEXT.slice(0, 300) },
    { type: 'tool-call', id: 'toolu_01A09q90qw90lq917835lq9', name: 'query_metrics', arguments: '{"service":"dispatch-api","metric":"p99","window":"1h","filters":{"region":"eu-west-1"}}', kind: 'function' },
  ],
  finish: { reason: 'tool_use', raw: 'tool_use' },
  usage: { ...usage, cacheReadTokens: 512, cacheWriteTokens: 64, reasoningTokens: 40 },
};

function context(protocol: 'messages' | 'responses', responseId: string): EncodeContext {
  const codec = protocol === 'messages' ? messagesCodec : responsesCodec;
  const request = codec.decodeRequest(JSON.parse(requestBody(protocol, 'bench-model', true)), []);
  // created_at in the future: completed_at (max of it and now) stays the same however slow a run is.
  return { request, responseId, createdAt: 4_000_000_000, warnings: [] };
}
const mctx = context('messages', 'msg_01XbK2Qm7sVfJ9aR3tYp4LcD');
const rctx = context('responses', 'resp_0123456789abcdef0123456789abcdef');

// --- (a) Messages result body: today JSON.stringify(resultToMessage(…)); fast-json-stringify compiled
// from the TypeBox schema that the encoder's output is checked against (every member, optional ones too).
const fjsMessage = fastJson(MessageResponse as object);

// --- (b) Responses result object: today string templates (response-object.ts); the alternatives need
// the object, so they get it for free here (parsed once up front): a lower bound on their cost.
const responseObject = JSON.parse(responsesCodec.encodeResult(result, rctx)) as Record<string, unknown>;
// The members of the response object this request produces, typed (free-form ones as objects).
// (fast-json-stringify's types do not know type arrays such as ['string', 'null'].)
const fjsResponse = fastJson({
  type: 'object',
  properties: {
    id: { type: 'string' }, object: { type: 'string' }, created_at: { type: 'integer' }, status: { type: 'string' },
    background: { type: 'boolean' }, completed_at: { type: ['integer', 'null'] }, error: { type: ['object', 'null'], additionalProperties: true },
    incomplete_details: { type: ['object', 'null'], additionalProperties: true }, instructions: { type: ['string', 'null'] },
    max_output_tokens: { type: ['integer', 'null'] }, max_tool_calls: { type: ['integer', 'null'] }, model: { type: 'string' },
    output: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string' }, type: { type: 'string' }, status: { type: 'string' },
          content: { type: 'array', items: { type: 'object', properties: { type: { type: 'string' }, annotations: { type: 'array', items: {} }, logprobs: { type: 'array', items: {} }, text: { type: 'string' } } } },
          role: { type: 'string' },
        },
      },
    },
    parallel_tool_calls: { type: 'boolean' }, previous_response_id: { type: ['string', 'null'] }, prompt_cache_key: { type: ['string', 'null'] },
    reasoning: { type: ['object', 'null'], additionalProperties: true }, safety_identifier: { type: ['string', 'null'] }, service_tier: { type: 'string' },
    store: { type: 'boolean' }, temperature: { type: 'number' },
    text: { type: 'object', properties: { format: { type: 'object', additionalProperties: true }, verbosity: { type: 'string' } } },
    tool_choice: {}, tools: { type: 'array', items: { type: 'object', additionalProperties: true } }, top_logprobs: { type: 'integer' },
    top_p: { type: 'number' }, truncation: { type: 'string' },
    usage: {
      type: 'object',
      properties: {
        input_tokens: { type: 'integer' }, input_tokens_details: { type: 'object', properties: { cached_tokens: { type: 'integer' } } },
        output_tokens: { type: 'integer' }, output_tokens_details: { type: 'object', properties: { reasoning_tokens: { type: 'integer' } } },
        total_tokens: { type: 'integer' },
      },
    },
    user: { type: ['string', 'null'] }, metadata: { type: 'object', additionalProperties: { type: 'string' } },
    presence_penalty: { type: 'number' }, frequency_penalty: { type: 'number' },
  },
} as object);

// --- (c) per-event data: text deltas as a 50-event stream carries them.
const pieces = splitText(ANSWER_TEXT, 44);
const MessagesDelta = Type.Object({
  type: Type.Literal('content_block_delta'),
  index: Type.Integer(),
  delta: Type.Object({ type: Type.Literal('text_delta'), text: Type.String() }),
});
const fjsMessagesDelta = fastJson(MessagesDelta as object);
const fjsResponsesDelta = fastJson({
  type: 'object',
  properties: {
    type: { type: 'string' }, sequence_number: { type: 'integer' }, item_id: { type: 'string' }, output_index: { type: 'integer' },
    content_index: { type: 'integer' }, delta: { type: 'string' }, logprobs: { type: 'array', items: {} },
  },
});
const ITEM_ID = 'msg_0123456789abcdef0123456789abcdef_0';

/** Today's encoders, whole: one text delta through encoder.event() per call. */
function encoderDeltas(codec: typeof messagesCodec, ctx: EncodeContext, sink: (f: string) => void): (i: number) => void {
  let enc = codec.createStreamEncoder(ctx, sink);
  const open = () => {
    enc = codec.createStreamEncoder(ctx, sink);
    enc.event({ type: 'response-start', id: 'x', model: 'm' } as IrEvent);
    enc.event({ type: 'text-start' } as IrEvent);
  };
  open();
  const deltas = pieces.map((text) => ({ type: 'text-delta', text }) as IrEvent);
  // A fresh encoder every 1,000 deltas keeps its accumulated text (Responses keeps it for `.done`) realistic.
  return (i) => {
    if (i % 1000 === 999) open();
    enc.event(deltas[i % deltas.length]!);
  };
}

let bytes = 0;
const sink = (s: string) => {
  bytes += Buffer.byteLength(s);
};

const VARIANTS: Record<string, () => (i: number) => void> = {
  'messages-result/today(JSON.stringify)': () => () => sink(messagesCodec.encodeResult(result, mctx)),
  'messages-result/fast-json-stringify': () => () => sink(fjsMessage(resultToMessage(result, mctx))),
  'messages-result-tools/today(JSON.stringify)': () => () => sink(messagesCodec.encodeResult(toolResult, mctx)),
  'messages-result-tools/fast-json-stringify': () => () => sink(fjsMessage(resultToMessage(toolResult, mctx))),
  'responses-result/today(templates)': () => () => sink(responsesCodec.encodeResult(result, rctx)),
  'responses-result/JSON.stringify(prebuilt object)': () => () => sink(JSON.stringify(responseObject)),
  'responses-result/fast-json-stringify(prebuilt object)': () => () => sink(fjsResponse(responseObject)),
  'messages-delta/today(encoder.event)': () => encoderDeltas(messagesCodec, mctx, sink),
  'messages-delta/template': () => (i) =>
    sink(sseFrame('content_block_delta', '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":' + JSON.stringify(pieces[i % pieces.length]) + '}}')),
  'messages-delta/JSON.stringify': () => (i) =>
    sink(sseFrame('content_block_delta', JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: pieces[i % pieces.length] } }))),
  'messages-delta/fast-json-stringify': () => (i) =>
    sink(sseFrame('content_block_delta', fjsMessagesDelta({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: pieces[i % pieces.length] } }))),
  'responses-delta/today(encoder.event)': () => encoderDeltas(responsesCodec, rctx, sink),
  'responses-delta/template': () => (i) =>
    sink(
      sseFrame(
        'response.output_text.delta',
        '{"type":"response.output_text.delta","sequence_number":' + i + ',"item_id":"' + ITEM_ID + '","output_index":0,"content_index":0,"delta":' + JSON.stringify(pieces[i % pieces.length]) + ',"logprobs":[]}',
      ),
    ),
  'responses-delta/JSON.stringify': () => (i) =>
    sink(sseFrame('response.output_text.delta', JSON.stringify({ type: 'response.output_text.delta', sequence_number: i, item_id: ITEM_ID, output_index: 0, content_index: 0, delta: pieces[i % pieces.length], logprobs: [] }))),
  'responses-delta/fast-json-stringify': () => (i) =>
    sink(sseFrame('response.output_text.delta', fjsResponsesDelta({ type: 'response.output_text.delta', sequence_number: i, item_id: ITEM_ID, output_index: 0, content_index: 0, delta: pieces[i % pieces.length], logprobs: [] }))),
};

/** Every alternative must produce what today's code produces (compared parsed). */
function checkEqual(): void {
  const same = (name: string, a: string, b: string) => {
    const x = JSON.stringify(JSON.parse(a));
    const y = JSON.stringify(JSON.parse(b));
    if (x !== y) throw new Error(`${name}: output differs\n${x.slice(0, 400)}\n${y.slice(0, 400)}`);
  };
  same('messages-result', messagesCodec.encodeResult(result, mctx), fjsMessage(resultToMessage(result, mctx)));
  same('messages-result-tools', messagesCodec.encodeResult(toolResult, mctx), fjsMessage(resultToMessage(toolResult, mctx)));
  same('responses-result', responsesCodec.encodeResult(result, rctx), fjsResponse(responseObject));
  const text = pieces[3]!;
  same(
    'messages-delta',
    '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":' + JSON.stringify(text) + '}}',
    fjsMessagesDelta({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }),
  );
  same(
    'responses-delta',
    JSON.stringify({ type: 'response.output_text.delta', sequence_number: 3, item_id: ITEM_ID, output_index: 0, content_index: 0, delta: text, logprobs: [] }),
    fjsResponsesDelta({ type: 'response.output_text.delta', sequence_number: 3, item_id: ITEM_ID, output_index: 0, content_index: 0, delta: text, logprobs: [] }),
  );
}

function nsPerOp(fn: (i: number) => void, n: number): number {
  for (let i = 0; i < Math.min(n, 20_000); i++) fn(i);
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) fn(i);
  return Number(process.hrtime.bigint() - t0) / n;
}

function main(): void {
  const flags = parseFlags(process.argv.slice(2));
  if (flags.has('list')) {
    process.stdout.write(Object.keys(VARIANTS).join('\n') + '\n');
    return;
  }
  checkEqual();
  const only = flags.get('only');
  if (only !== undefined) {
    const make = VARIANTS[only];
    if (!make) throw new Error(`unknown variant ${only}; known:\n${Object.keys(VARIANTS).join('\n')}`);
    const fn = make();
    const n = Number(flags.get('n') ?? 10_000);
    for (let i = 0; i < n; i++) fn(i);
    process.stdout.write(`${only}: ${n} ops, ${bytes} bytes\n`);
    return;
  }
  const rounds = Number(flags.get('rounds') ?? 7);
  const results: Record<string, number[]> = {};
  for (let r = 0; r < rounds; r++) {
    for (const [name, make] of Object.entries(VARIANTS)) {
      const n = name.includes('delta') ? 400_000 : 40_000;
      (results[name] ??= []).push(nsPerOp(make(), n));
    }
  }
  const median = (v: number[]) => [...v].sort((a, b) => a - b)[v.length >> 1]!;
  for (const [name, v] of Object.entries(results)) {
    process.stdout.write(`${name.padEnd(56)} ${median(v).toFixed(0).padStart(7)} ns/op  (min ${Math.min(...v).toFixed(0)}, max ${Math.max(...v).toFixed(0)})\n`);
  }
}

main();
