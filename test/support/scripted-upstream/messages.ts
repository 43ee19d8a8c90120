// Anthropic Messages wire format: Message JSON, the SSE event sequence, and error envelopes.
import { ids } from './ids.js';
import type { ErrorSpec, ProtocolRenderer, StreamScript } from './protocol.js';
import { namedFrame, splitText } from './sse.js';
import type { OkReply, ReceivedRequest, ReplyBlock } from './types.js';
import { resolveUsage, type ResolvedUsage } from './usage.js';

type Json = Record<string, unknown>;

/** Blocks with their ids and opaque payloads fixed once, so stream and snapshot agree. */
type Prepared =
  | { type: 'text'; text: string }
  | { type: 'thinking'; text: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; id: string; name: string; json: string };

function prepare(blocks: ReplyBlock[]): Prepared[] {
  return blocks.map((b): Prepared => {
    if (b.type === 'text') return { type: 'text', text: b.text };
    if (b.type === 'reasoning') {
      const opaque = b.opaque ?? ids.anthropicSignature();
      return b.text === '' ? { type: 'redacted_thinking', data: opaque } : { type: 'thinking', text: b.text, signature: opaque };
    }
    // Anthropic has no freeform tools: a custom call's text travels as {input: text}.
    const json = b.custom ? JSON.stringify({ input: b.arguments }) : b.arguments;
    return { type: 'tool_use', id: b.id ?? ids.anthropicToolUse(), name: b.name, json };
  });
}

function parseInput(json: string): unknown {
  try {
    const value: unknown = JSON.parse(json);
    return value !== null && typeof value === 'object' ? value : {};
  } catch {
    return {}; // truncated arguments (max_tokens): the API would not return a half object either
  }
}

/** API version 2026-10-21 (SDK ≥1.0) adds nullable fields; 2023-06-01 clients never see them. */
function isModern(req: ReceivedRequest): boolean {
  const version = req.headers['anthropic-version'];
  return typeof version === 'string' && version >= '2026';
}

function stopOf(reply: OkReply, req: ReceivedRequest): { stop_reason: string; stop_sequence: string | null } {
  switch (reply.stop) {
    case 'max_tokens':
      return { stop_reason: 'max_tokens', stop_sequence: null };
    case 'refusal':
      return { stop_reason: 'refusal', stop_sequence: null };
    case 'stop_sequence': {
      const requested = Array.isArray(req.body?.stop_sequences) ? (req.body.stop_sequences[0] as string) : null;
      return { stop_reason: 'stop_sequence', stop_sequence: reply.stopSequence ?? requested ?? null };
    }
    default:
      return { stop_reason: reply.blocks.some((b) => b.type === 'tool-call') ? 'tool_use' : 'end_turn', stop_sequence: null };
  }
}

function finalBlock(b: Prepared, modern: boolean): Json {
  switch (b.type) {
    case 'text':
      return modern ? { type: 'text', text: b.text, citations: null } : { type: 'text', text: b.text };
    case 'thinking':
      return { type: 'thinking', thinking: b.text, signature: b.signature };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: b.data };
    case 'tool_use':
      return { type: 'tool_use', id: b.id, name: b.name, input: parseInput(b.json), ...(modern ? { caller: { type: 'direct' } } : {}) };
  }
}

function usageBody(u: ResolvedUsage, output: number, thinking: number, modern: boolean): Json {
  return {
    input_tokens: u.input,
    cache_creation_input_tokens: u.cacheWrite,
    cache_read_input_tokens: u.cacheRead,
    cache_creation: { ephemeral_5m_input_tokens: u.cacheWrite, ephemeral_1h_input_tokens: 0 },
    output_tokens: output,
    service_tier: 'standard',
    ...(modern ? { output_tokens_details: { thinking_tokens: thinking }, server_tool_use: null } : {}),
  };
}

function stopDetails(stopReason: string): Json | null {
  return stopReason === 'refusal' ? { type: 'refusal', category: null, explanation: null } : null;
}

function model(req: ReceivedRequest): string {
  return typeof req.body?.model === 'string' ? req.body.model : 'scripted-model';
}

function json(reply: OkReply, req: ReceivedRequest): unknown {
  const modern = isModern(req);
  const usage = resolveUsage(reply, req);
  const stop = stopOf(reply, req);
  return {
    id: ids.anthropicMessage(),
    type: 'message',
    role: 'assistant',
    model: model(req),
    content: prepare(reply.blocks).map((b) => finalBlock(b, modern)),
    ...stop,
    usage: usageBody(usage, usage.output, usage.reasoning, modern),
    ...(modern ? { stop_details: stopDetails(stop.stop_reason), container: null } : {}),
  };
}

/** content_block_start … content_block_stop for one block. */
function blockFrames(b: Prepared, index: number, modern: boolean): string[] {
  const delta = (d: Json) => namedFrame('content_block_delta', { type: 'content_block_delta', index, delta: d });
  const start = (block: Json) => namedFrame('content_block_start', { type: 'content_block_start', index, content_block: block });
  const frames: string[] = [];
  switch (b.type) {
    case 'text':
      frames.push(start(modern ? { type: 'text', text: '', citations: null } : { type: 'text', text: '' }));
      for (const text of splitText(b.text)) frames.push(delta({ type: 'text_delta', text }));
      break;
    case 'thinking':
      frames.push(start({ type: 'thinking', thinking: '', signature: '' }));
      for (const thinking of splitText(b.text)) frames.push(delta({ type: 'thinking_delta', thinking }));
      frames.push(delta({ type: 'signature_delta', signature: b.signature }));
      break;
    case 'redacted_thinking':
      frames.push(start({ type: 'redacted_thinking', data: b.data })); // complete at start, no deltas
      break;
    case 'tool_use':
      frames.push(start({ type: 'tool_use', id: b.id, name: b.name, input: {}, ...(modern ? { caller: { type: 'direct' } } : {}) }));
      for (const partial_json of ['', ...splitText(b.json)]) frames.push(delta({ type: 'input_json_delta', partial_json }));
      break;
  }
  frames.push(namedFrame('content_block_stop', { type: 'content_block_stop', index }));
  return frames;
}

function stream(reply: OkReply, req: ReceivedRequest): StreamScript {
  const modern = isModern(req);
  const usage = resolveUsage(reply, req);
  const ping = namedFrame('ping', { type: 'ping' });
  const opening = [
    namedFrame('message_start', {
      type: 'message_start',
      message: {
        id: ids.anthropicMessage(),
        type: 'message',
        role: 'assistant',
        model: model(req),
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: usageBody(usage, 1, 0, modern),
        ...(modern ? { stop_details: null, container: null } : {}),
      },
    }),
  ];
  const blocks = prepare(reply.blocks);
  blocks.forEach((b, i) => {
    const frames = blockFrames(b, i, modern);
    opening.push(...(i === 0 ? [frames[0]!, ping, ...frames.slice(1)] : frames)); // ping after the first start
  });
  if (blocks.length === 0) opening.push(ping);
  return {
    opening,
    finish() {
      const stop = stopOf(reply, req);
      const finalUsage: Json = {
        input_tokens: usage.input,
        cache_creation_input_tokens: usage.cacheWrite,
        cache_read_input_tokens: usage.cacheRead,
        output_tokens: usage.output,
        ...(modern ? { output_tokens_details: { thinking_tokens: usage.reasoning }, server_tool_use: null } : {}),
      };
      return [
        namedFrame('message_delta', {
          type: 'message_delta',
          delta: { ...stop, ...(modern ? { stop_details: stopDetails(stop.stop_reason), container: null } : {}) },
          usage: finalUsage,
        }),
        namedFrame('message_stop', { type: 'message_stop' }),
      ];
    },
    fail(message) {
      return [namedFrame('error', { type: 'error', error: { type: 'api_error', message }, request_id: ids.anthropicRequest() })];
    },
  };
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  409: 'conflict_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

export function anthropicErrorType(status: number): string {
  return ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

const DEFAULT_MESSAGES: Record<string, string> = {
  rate_limit_error: 'Number of request tokens has exceeded your per-minute rate limit',
  overloaded_error: 'Overloaded',
  api_error: 'Internal server error',
  not_found_error: 'Not found',
  authentication_error: 'invalid x-api-key',
};

export function anthropicError(spec: ErrorSpec): unknown {
  const type = spec.type ?? anthropicErrorType(spec.status);
  return { type: 'error', error: { type, message: spec.message ?? DEFAULT_MESSAGES[type] ?? 'Error' }, request_id: ids.anthropicRequest() };
}

export const messagesRenderer: ProtocolRenderer = {
  headers: () => ({ 'request-id': ids.anthropicRequest() }),
  json,
  stream,
  error: anthropicError,
};

/** What Anthropic checks of a history when thinking is on: every thinking block's signature is one it
 * issued for exactly that text (redacted data likewise), and the assistant turn whose calls the last
 * message answers starts with its thinking block. `issued`: signature or data → the thinking text. */
export function verifyThinking(body: Record<string, any>, issued: ReadonlyMap<string, string>): string | undefined { // eslint-disable-line @typescript-eslint/no-explicit-any
  const mode = body.thinking?.type;
  if (mode !== 'enabled' && mode !== 'adaptive') return undefined;
  const messages: Record<string, any>[] = Array.isArray(body.messages) ? body.messages : []; // eslint-disable-line @typescript-eslint/no-explicit-any
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role !== 'assistant' || !Array.isArray(m.content)) continue;
    for (let j = 0; j < m.content.length; j++) {
      const b = m.content[j];
      if (b.type === 'thinking' && issued.get(b.signature) !== b.thinking) return `messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block`;
      if (b.type === 'redacted_thinking' && !issued.has(b.data)) return `messages.${i}.content.${j}: Invalid \`data\` in \`redacted_thinking\` block`;
    }
  }
  const lastUser = messages[messages.length - 1];
  const answersCalls = lastUser?.role === 'user' && Array.isArray(lastUser.content) && lastUser.content.some((b: { type?: string }) => b.type === 'tool_result');
  const turn = messages[messages.length - 2];
  if (answersCalls && turn?.role === 'assistant') {
    const first = Array.isArray(turn.content) ? turn.content[0] : { type: 'text' };
    if (first?.type !== 'thinking' && first?.type !== 'redacted_thinking') {
      return `messages.${messages.length - 2}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first?.type)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks).`;
    }
  }
  return undefined;
}
