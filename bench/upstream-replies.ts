// Precomputed answers of the fake upstream, byte-exact per protocol: a complete non-streamed body, or
// the complete SSE event sequence of a streamed answer (one buffer per event), built once per
// (protocol, model, stream) and replayed for every request. The only per-request work is stamping a
// fresh id into the fixed-width placeholder slots, so ids stay unique like a real provider's.
import { ANSWER_TEXT } from './corpus.js';
import type { Protocol } from './request-bodies.js';

/** 24 characters, replaced per request by a unique id of the same width. */
export const ID_PLACEHOLDER = 'ZZZZZZZZZZZZZZZZZZZZZZZZ';
export const ID_WIDTH = ID_PLACEHOLDER.length;

export interface PreparedReply {
  stream: boolean;
  /** Flat header list [name, value, name, value…] for writeHead (content-length included when not streamed). */
  headers: string[];
  /** The body (one chunk) or the events (one chunk per SSE event, in order). */
  chunks: Buffer[];
  /** Per chunk, the byte offsets where the id placeholder sits (empty when none). */
  idSlots: number[][];
  /** Streams: the framing events before the first delta and after the last (see `pacingTick`). */
  opening: number;
  closing: number;
}

export const INPUT_TOKENS = 612;
export const OUTPUT_TOKENS = Math.round(ANSWER_TEXT.length / 4);

/** Fixed SSE framing overhead (non-delta events) per protocol; deltas = events − overhead. */
export const STREAM_OVERHEAD: Record<Protocol, number> = {
  // message_start, content_block_start, ping, content_block_stop, message_delta, message_stop
  messages: 6,
  // created, in_progress, output_item.added, content_part.added, output_text.done, content_part.done,
  // output_item.done, completed
  responses: 8,
  // role chunk, finish chunk, usage chunk, [DONE]
  chat: 4,
  // the closing frame with finishReason and usage
  gemini: 1,
};

/** Of STREAM_OVERHEAD, the events before the first delta (the rest come after the last). */
export const STREAM_OPENING: Record<Protocol, number> = { messages: 3, responses: 4, chat: 1, gemini: 0 };

/**
 * When a paced stream writes chunk `i` of `n`, in ticks of the pacing: as a vendor streams, the framing
 * events before the first delta at once (tick 0), then one delta per tick, and the closing events right
 * after the last delta (in its tick). A provider's framing events leave together: pacing them too made a
 * translated stream look late wherever the caller's protocol has no event for one of them.
 */
export function pacingTick(reply: Pick<PreparedReply, 'opening' | 'closing'>, n: number, i: number): number {
  if (i < reply.opening) return 0;
  const firstDeltaTick = reply.opening > 0 ? 1 : 0;
  return Math.min(i, n - reply.closing - 1) - reply.opening + firstDeltaTick;
}

/** Terminal marker a complete stream of that protocol ends with (used by checks). */
export const STREAM_TERMINAL: Record<Protocol, string> = {
  messages: 'event: message_stop',
  responses: 'event: response.completed',
  chat: 'data: [DONE]',
  // Gemini streams have no end marker (the connection's end is the end): the finishing frame.
  gemini: '"finishReason":"STOP"',
};

export function deltaCount(protocol: Protocol, events: number): number {
  return Math.max(1, events - STREAM_OVERHEAD[protocol]);
}

/** Split text into n non-empty pieces of similar size, cutting after spaces where possible. */
export function splitText(text: string, n: number): string[] {
  const count = Math.max(1, Math.min(n, text.length));
  const pieces: string[] = [];
  let start = 0;
  for (let i = 1; i <= count; i++) {
    let end = i === count ? text.length : Math.round((i * text.length) / count);
    if (i < count) {
      // Prefer a cut right after a space within a few characters, as tokenizers do.
      const space = text.indexOf(' ', end);
      if (space !== -1 && space - end < 6 && space + 1 < text.length) end = space + 1;
      // Keep at least one character per remaining piece.
      end = Math.max(end, start + 1);
      end = Math.min(end, text.length - (count - i));
    }
    pieces.push(text.slice(start, end));
    start = end;
  }
  return pieces;
}

/** Deterministic filler like OpenAI's `obfuscation` padding. */
function obfuscation(i: number): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  let s = '';
  const len = 2 + ((i * 7) % 9);
  for (let k = 0; k < len; k++) s += alphabet[(i * 31 + k * 17) % alphabet.length];
  return s;
}

function sse(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

function chatFrame(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

function slotsOf(buf: Buffer): number[] {
  const slots: number[] = [];
  let at = buf.indexOf(ID_PLACEHOLDER);
  while (at !== -1) {
    slots.push(at);
    at = buf.indexOf(ID_PLACEHOLDER, at + ID_WIDTH);
  }
  return slots;
}

function finish(stream: boolean, headers: string[], texts: string[], protocol: Protocol): PreparedReply {
  const chunks = texts.map((t) => Buffer.from(t, 'utf8'));
  const flat = stream ? headers : [...headers, 'content-length', String(chunks[0]!.length)];
  const opening = stream ? STREAM_OPENING[protocol] : 0;
  const closing = stream ? STREAM_OVERHEAD[protocol] - opening : 0;
  return { stream, headers: flat, chunks, idSlots: chunks.map(slotsOf), opening, closing };
}

const CREATED = 1763700000;

// ---------------------------------------------------------------------------------------------
// Anthropic Messages

const messagesUsage = {
  input_tokens: INPUT_TOKENS,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
  cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
  output_tokens: OUTPUT_TOKENS,
  service_tier: 'standard',
};

function messagesHeaders(stream: boolean): string[] {
  return [
    'content-type', stream ? 'text/event-stream; charset=utf-8' : 'application/json',
    ...(stream ? ['cache-control', 'no-cache'] : []),
    'request-id', 'req_011CbenchUpstreamRequest01',
    'anthropic-organization-id', '7f1d2c3b-0000-4000-8000-000000000bench',
    'anthropic-ratelimit-requests-limit', '4000',
    'anthropic-ratelimit-requests-remaining', '3999',
    'anthropic-ratelimit-requests-reset', '2026-01-01T00:00:00Z',
  ];
}

function messagesReply(model: string, stream: boolean, events: number): PreparedReply {
  const id = 'msg_01' + ID_PLACEHOLDER;
  if (!stream) {
    const body = {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content: [{ type: 'text', text: ANSWER_TEXT }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: messagesUsage,
    };
    return finish(false, messagesHeaders(false), [JSON.stringify(body)], 'messages');
  }
  const frames: string[] = [
    sse('message_start', {
      type: 'message_start',
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...messagesUsage, output_tokens: 1 },
      },
    }),
    sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
    sse('ping', { type: 'ping' }),
  ];
  for (const text of splitText(ANSWER_TEXT, deltaCount('messages', events))) {
    frames.push(sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }));
  }
  frames.push(
    sse('content_block_stop', { type: 'content_block_stop', index: 0 }),
    sse('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: OUTPUT_TOKENS },
    }),
    sse('message_stop', { type: 'message_stop' }),
  );
  return finish(true, messagesHeaders(true), frames, 'messages');
}

// ---------------------------------------------------------------------------------------------
// OpenAI Responses

function openaiHeaders(stream: boolean): string[] {
  return [
    'content-type', stream ? 'text/event-stream; charset=utf-8' : 'application/json',
    ...(stream ? ['cache-control', 'no-cache'] : []),
    'x-request-id', 'req_bench0upstream0request0001',
    'openai-processing-ms', '412',
    'openai-version', '2020-10-01',
    'x-ratelimit-limit-requests', '10000',
    'x-ratelimit-remaining-requests', '9999',
    'x-ratelimit-reset-requests', '6ms',
  ];
}

const responsesUsage = {
  input_tokens: INPUT_TOKENS,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: OUTPUT_TOKENS,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: INPUT_TOKENS + OUTPUT_TOKENS,
};

function responseObject(model: string, status: 'in_progress' | 'completed', output: unknown[], usage: unknown) {
  return {
    id: 'resp_' + ID_PLACEHOLDER,
    object: 'response',
    created_at: CREATED,
    status,
    background: false,
    completed_at: status === 'completed' ? CREATED + 3 : null,
    error: null,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: 1024,
    max_tool_calls: null,
    model,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    prompt_cache_key: null,
    reasoning: { effort: null, summary: null },
    safety_identifier: null,
    service_tier: 'default',
    store: false,
    temperature: 1.0,
    text: { format: { type: 'text' }, verbosity: 'medium' },
    tool_choice: 'auto',
    tools: [],
    top_logprobs: 0,
    top_p: 1.0,
    truncation: 'disabled',
    usage,
    user: null,
    metadata: {},
    presence_penalty: 0,
    frequency_penalty: 0,
  };
}

function responsesReply(model: string, stream: boolean, events: number): PreparedReply {
  const itemId = 'msg_' + ID_PLACEHOLDER;
  const part = { type: 'output_text', annotations: [], logprobs: [], text: ANSWER_TEXT };
  const item = { id: itemId, type: 'message', status: 'completed', content: [part], role: 'assistant' };
  if (!stream) {
    return finish(false, openaiHeaders(false), [JSON.stringify(responseObject(model, 'completed', [item], responsesUsage))], 'responses');
  }
  let seq = 0;
  const frames: string[] = [];
  const push = (type: string, fields: Record<string, unknown>) => {
    frames.push(sse(type, { type, sequence_number: seq++, ...fields }));
  };
  const snapshot = responseObject(model, 'in_progress', [], null);
  push('response.created', { response: snapshot });
  push('response.in_progress', { response: snapshot });
  push('response.output_item.added', {
    output_index: 0,
    item: { id: itemId, type: 'message', status: 'in_progress', content: [], role: 'assistant' },
  });
  const where = { item_id: itemId, output_index: 0, content_index: 0 };
  push('response.content_part.added', { ...where, part: { type: 'output_text', annotations: [], logprobs: [], text: '' } });
  splitText(ANSWER_TEXT, deltaCount('responses', events)).forEach((delta, i) => {
    push('response.output_text.delta', { ...where, delta, logprobs: [], obfuscation: obfuscation(i) });
  });
  push('response.output_text.done', { ...where, text: ANSWER_TEXT, logprobs: [] });
  push('response.content_part.done', { ...where, part });
  push('response.output_item.done', { output_index: 0, item });
  push('response.completed', { response: responseObject(model, 'completed', [item], responsesUsage) });
  return finish(true, openaiHeaders(true), frames, 'responses');
}

// ---------------------------------------------------------------------------------------------
// OpenAI Chat Completions

const chatUsage = {
  prompt_tokens: INPUT_TOKENS,
  completion_tokens: OUTPUT_TOKENS,
  total_tokens: INPUT_TOKENS + OUTPUT_TOKENS,
  prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
};

function chatReply(model: string, stream: boolean, events: number): PreparedReply {
  const id = 'chatcmpl-' + ID_PLACEHOLDER;
  const head = { id, object: stream ? 'chat.completion.chunk' : 'chat.completion', created: CREATED, model };
  const tail = { service_tier: 'default', system_fingerprint: 'fp_bench01' };
  if (!stream) {
    const body = {
      ...head,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: ANSWER_TEXT, refusal: null, annotations: [] },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: chatUsage,
      ...tail,
    };
    return finish(false, openaiHeaders(false), [JSON.stringify(body)], 'chat');
  }
  const chunk = (delta: Record<string, unknown>, finishReason: string | null, i: number) =>
    chatFrame({ ...head, ...tail, choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }], usage: null, obfuscation: obfuscation(i) });
  const frames: string[] = [chunk({ role: 'assistant', content: '', refusal: null }, null, 0)];
  splitText(ANSWER_TEXT, deltaCount('chat', events)).forEach((content, i) => frames.push(chunk({ content }, null, i + 1)));
  frames.push(chunk({}, 'stop', frames.length));
  frames.push(chatFrame({ ...head, ...tail, choices: [], usage: chatUsage, obfuscation: obfuscation(frames.length) }));
  frames.push('data: [DONE]\n\n');
  return finish(true, openaiHeaders(true), frames, 'chat');
}

// ---------------------------------------------------------------------------------------------
// Google Gemini

const geminiUsage = {
  promptTokenCount: INPUT_TOKENS,
  candidatesTokenCount: OUTPUT_TOKENS,
  totalTokenCount: INPUT_TOKENS + OUTPUT_TOKENS,
  promptTokensDetails: [{ modality: 'TEXT', tokenCount: INPUT_TOKENS }],
};

function geminiHeaders(stream: boolean): string[] {
  return [
    'content-type', stream ? 'text/event-stream' : 'application/json; charset=UTF-8',
    'vary', 'Origin, X-Origin, Referer',
    'server', 'scaffolding on HTTPServer2',
    'x-xss-protection', '0',
    'x-frame-options', 'SAMEORIGIN',
    'x-content-type-options', 'nosniff',
    'server-timing', 'gfet4t7; dur=412',
  ];
}

function geminiReply(model: string, stream: boolean, events: number): PreparedReply {
  const tail = { modelVersion: model, responseId: ID_PLACEHOLDER };
  if (!stream) {
    const body = { candidates: [{ content: { parts: [{ text: ANSWER_TEXT }], role: 'model' }, finishReason: 'STOP', index: 0 }], usageMetadata: geminiUsage, ...tail };
    return finish(false, geminiHeaders(false), [JSON.stringify(body)], 'gemini');
  }
  const running = { promptTokenCount: INPUT_TOKENS, totalTokenCount: INPUT_TOKENS, promptTokensDetails: geminiUsage.promptTokensDetails };
  const frame = (data: unknown) => `data: ${JSON.stringify(data)}\r\n\r\n`;
  const frames = splitText(ANSWER_TEXT, deltaCount('gemini', events)).map((text) =>
    frame({ candidates: [{ content: { parts: [{ text }], role: 'model' }, index: 0 }], usageMetadata: running, ...tail }),
  );
  frames.push(frame({ candidates: [{ content: { parts: [{ text: '' }], role: 'model' }, finishReason: 'STOP', index: 0 }], usageMetadata: geminiUsage, ...tail }));
  return finish(true, geminiHeaders(true), frames, 'gemini');
}

// ---------------------------------------------------------------------------------------------
// Tool calls: an agent loop's turn (the socket bench, socket-overhead.ts)

/** A model whose name ends with this is answered with a call of TOOL_NAME (messages and responses,
 * streamed): each turn of a tool loop asks for the next call. Chosen by name, so the other lanes' replies
 * cost the fake upstream nothing more. */
export const TOOL_LOOP_SUFFIX = '-tool-loop';
export const TOOL_NAME = 'run_shell';
/** The call's arguments, streamed in a few pieces as a model writes them. */
export const TOOL_ARGUMENTS = JSON.stringify({ command: ['bash', '-lc', 'rg -n "retry_budget" src/ && sed -n 1,80p src/router/retry.ts'], workdir: '/repo', timeout_ms: 10000 });
const TOOL_ARGUMENT_PIECES = 6;

function messagesToolCall(model: string): PreparedReply {
  const id = 'msg_01' + ID_PLACEHOLDER;
  const frames: string[] = [
    sse('message_start', {
      type: 'message_start',
      message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...messagesUsage, output_tokens: 1 } },
    }),
    sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_01' + ID_PLACEHOLDER, name: TOOL_NAME, input: {} } }),
    sse('ping', { type: 'ping' }),
  ];
  for (const partial_json of splitText(TOOL_ARGUMENTS, TOOL_ARGUMENT_PIECES)) {
    frames.push(sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json } }));
  }
  frames.push(
    sse('content_block_stop', { type: 'content_block_stop', index: 0 }),
    sse('message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 48 } }),
    sse('message_stop', { type: 'message_stop' }),
  );
  return finish(true, messagesHeaders(true), frames, 'messages');
}

function responsesToolCall(model: string): PreparedReply {
  const item = { id: 'fc_' + ID_PLACEHOLDER, type: 'function_call', status: 'completed', arguments: TOOL_ARGUMENTS, call_id: 'call_' + ID_PLACEHOLDER, name: TOOL_NAME };
  const usage = { ...responsesUsage, output_tokens: 48, total_tokens: INPUT_TOKENS + 48 };
  let seq = 0;
  const frames: string[] = [];
  const push = (type: string, fields: Record<string, unknown>) => frames.push(sse(type, { type, sequence_number: seq++, ...fields }));
  const snapshot = responseObject(model, 'in_progress', [], null);
  push('response.created', { response: snapshot });
  push('response.in_progress', { response: snapshot });
  push('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', arguments: '' } });
  splitText(TOOL_ARGUMENTS, TOOL_ARGUMENT_PIECES).forEach((delta, i) => {
    push('response.function_call_arguments.delta', { item_id: item.id, output_index: 0, delta, obfuscation: obfuscation(i) });
  });
  push('response.function_call_arguments.done', { item_id: item.id, output_index: 0, arguments: TOOL_ARGUMENTS });
  push('response.output_item.done', { output_index: 0, item });
  push('response.completed', { response: responseObject(model, 'completed', [item], usage) });
  // Three framing events on each side of the deltas (a text answer has four before them).
  return { ...finish(true, openaiHeaders(true), frames, 'responses'), opening: 3, closing: 3 };
}

/** The streamed tool call of a tool-loop model, or undefined (that protocol has none here). */
export function prepareToolCallReply(protocol: Protocol, model: string): PreparedReply | undefined {
  if (protocol === 'messages') return messagesToolCall(model);
  if (protocol === 'responses') return responsesToolCall(model);
  return undefined;
}

export function prepareReply(protocol: Protocol, model: string, stream: boolean, events: number): PreparedReply {
  switch (protocol) {
    case 'messages':
      return messagesReply(model, stream, events);
    case 'responses':
      return responsesReply(model, stream, events);
    case 'chat':
      return chatReply(model, stream, events);
    case 'gemini':
      return geminiReply(model, stream, events);
  }
}

/** The chunks of a reply with a fresh id stamped into every slot (untouched chunks are shared). */
export function stampId(reply: PreparedReply, id: string): Buffer[] {
  const out = new Array<Buffer>(reply.chunks.length);
  for (let i = 0; i < reply.chunks.length; i++) {
    const src = reply.chunks[i]!;
    const slots = reply.idSlots[i]!;
    if (slots.length === 0) {
      out[i] = src;
      continue;
    }
    const copy = Buffer.allocUnsafe(src.length);
    src.copy(copy);
    for (const at of slots) copy.write(id, at, ID_WIDTH, 'latin1');
    out[i] = copy;
  }
  return out;
}
