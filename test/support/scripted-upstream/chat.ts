// OpenAI Chat Completions wire format: chat.completion, chunk streams ending in [DONE], and error envelopes.
import { ids } from './ids.js';
import { openaiError } from './openai-errors.js';
import type { ProtocolRenderer, StreamScript } from './protocol.js';
import { dataFrame, splitText } from './sse.js';
import type { OkReply, ReceivedRequest, ReplyBlock } from './types.js';
import { resolveUsage, type ResolvedUsage } from './usage.js';

type Json = Record<string, unknown>;
type ToolCallBlock = Extract<ReplyBlock, { type: 'tool-call' }>;

function finishReason(reply: OkReply): string {
  switch (reply.stop) {
    case 'max_tokens':
      return 'length';
    case 'refusal':
      return 'content_filter';
    default: // a stop-sequence hit is indistinguishable from a natural end in Chat
      return reply.blocks.some((b) => b.type === 'tool-call') ? 'tool_calls' : 'stop';
  }
}

function usageBody(u: ResolvedUsage): Json {
  const prompt = u.input + u.cacheRead + u.cacheWrite; // prompt_tokens include cached tokens
  return {
    prompt_tokens: prompt,
    completion_tokens: u.output,
    total_tokens: prompt + u.output,
    prompt_tokens_details: { cached_tokens: u.cacheRead, audio_tokens: 0, ...(u.cacheWrite ? { cache_write_tokens: u.cacheWrite } : {}) },
    completion_tokens_details: { reasoning_tokens: u.reasoning, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}

interface Prepared {
  text: string | null;
  reasoning: string | null;
  calls: { block: ToolCallBlock; id: string }[];
}

function prepare(reply: OkReply): Prepared {
  const texts = reply.blocks.flatMap((b) => (b.type === 'text' ? [b.text] : []));
  // Opaque reasoning state has no Chat equivalent: only the text travels (DeepSeek-style reasoning_content).
  const reasoning = reply.blocks.flatMap((b) => (b.type === 'reasoning' && b.text !== '' ? [b.text] : []));
  const calls = reply.blocks.flatMap((b) => (b.type === 'tool-call' ? [{ block: b, id: b.id ?? ids.callId() }] : []));
  return { text: texts.length ? texts.join('') : null, reasoning: reasoning.length ? reasoning.join('') : null, calls };
}

function toolCall(call: Prepared['calls'][number]): Json {
  const { block, id } = call;
  return block.custom
    ? { id, type: 'custom', custom: { name: block.name, input: block.arguments } }
    : { id, type: 'function', function: { name: block.name, arguments: block.arguments } };
}

const model = (req: ReceivedRequest) => (typeof req.body?.model === 'string' ? req.body.model : 'scripted-model');
const now = () => Math.floor(Date.now() / 1000);

function json(reply: OkReply, req: ReceivedRequest): unknown {
  const p = prepare(reply);
  const message: Json = { role: 'assistant', content: p.text, refusal: null, annotations: [] };
  if (p.reasoning !== null) message.reasoning_content = p.reasoning;
  if (p.calls.length) message.tool_calls = p.calls.map(toolCall);
  return {
    id: ids.chatCompletion(),
    object: 'chat.completion',
    created: now(),
    model: model(req),
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(reply) }],
    usage: usageBody(resolveUsage(reply, req)),
    service_tier: 'default',
    system_fingerprint: ids.fingerprint(),
  };
}

function stream(reply: OkReply, req: ReceivedRequest): StreamScript {
  const p = prepare(reply);
  const includeUsage = req.body?.stream_options?.include_usage === true;
  const head = { id: ids.chatCompletion(), object: 'chat.completion.chunk', created: now(), model: model(req), service_tier: 'default', system_fingerprint: ids.fingerprint() };
  // With include_usage every chunk says `usage: null` until the choices-less usage chunk.
  const chunk = (delta: Json, finish: string | null = null) =>
    dataFrame({ ...head, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...(includeUsage ? { usage: null } : {}) });

  const opening = [chunk({ role: 'assistant', content: p.text === null ? null : '', refusal: null })];
  for (const piece of splitText(p.reasoning ?? '')) opening.push(chunk({ reasoning_content: piece }));
  for (const piece of splitText(p.text ?? '')) opening.push(chunk({ content: piece }));
  p.calls.forEach((call, index) => {
    const { block, id } = call;
    if (block.custom) {
      opening.push(chunk({ tool_calls: [{ index, ...toolCall(call) }] })); // freeform input in one piece
      return;
    }
    opening.push(chunk({ tool_calls: [{ index, id, type: 'function', function: { name: block.name, arguments: '' } }] }));
    for (const args of splitText(block.arguments)) opening.push(chunk({ tool_calls: [{ index, function: { arguments: args } }] }));
  });

  return {
    opening,
    finish() {
      const frames = [chunk({}, finishReason(reply))];
      if (includeUsage) frames.push(dataFrame({ ...head, choices: [], usage: usageBody(resolveUsage(reply, req)) }));
      frames.push(dataFrame('[DONE]'));
      return frames;
    },
    fail(message) {
      return [dataFrame({ error: { message, type: 'server_error', param: null, code: 'server_error' } })];
    },
  };
}

export const chatRenderer: ProtocolRenderer = {
  headers: () => ({ 'x-request-id': ids.openaiRequest(), 'openai-version': '2020-10-01', 'openai-processing-ms': '1' }),
  json,
  stream,
  error: openaiError,
};
