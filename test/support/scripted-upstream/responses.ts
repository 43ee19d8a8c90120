// OpenAI Responses wire format: the response object, the SSE event sequence, and error envelopes.
import { ids } from './ids.js';
import { openaiError } from './openai-errors.js';
import type { ProtocolRenderer, StreamScript } from './protocol.js';
import { namedFrame, splitText } from './sse.js';
import type { OkReply, ReceivedRequest, ReplyBlock } from './types.js';
import { resolveUsage, type ResolvedUsage } from './usage.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** One output item: its final form plus what the stream needs to build it up. */
interface Item {
  block: ReplyBlock;
  id: string;
  final: Json;
}

function wantsEncryptedReasoning(req: ReceivedRequest): boolean {
  return Array.isArray(req.body?.include) && req.body.include.includes('reasoning.encrypted_content');
}

function prepare(reply: OkReply, req: ReceivedRequest, incomplete: boolean): Item[] {
  const encrypted = wantsEncryptedReasoning(req);
  const items = reply.blocks.map((block): Item => {
    switch (block.type) {
      case 'text': {
        const id = ids.responseMessage();
        const part = { type: 'output_text', annotations: [], logprobs: [], text: block.text };
        return { block, id, final: { id, type: 'message', status: 'completed', content: [part], role: 'assistant' } };
      }
      case 'reasoning': {
        const id = ids.reasoning();
        const summary = block.text === '' ? [] : [{ type: 'summary_text', text: block.text }];
        // OpenAI only returns the opaque state when the caller asked for it.
        const encrypted_content = encrypted ? (block.opaque ?? ids.encryptedContent()) : null;
        return { block, id, final: { id, type: 'reasoning', summary, encrypted_content } };
      }
      case 'tool-call': {
        const call_id = block.id ?? ids.callId();
        if (block.custom) {
          const id = ids.customToolCall();
          return { block, id, final: { id, type: 'custom_tool_call', call_id, input: block.arguments, name: block.name } };
        }
        const id = ids.functionCall();
        return { block, id, final: { id, type: 'function_call', status: 'completed', arguments: block.arguments, call_id, name: block.name } };
      }
    }
  });
  // A cut-off response leaves its last message or call unfinished.
  const last = items[items.length - 1];
  if (incomplete && last && 'status' in last.final) last.final.status = 'incomplete';
  return items;
}

function incompleteReason(reply: OkReply): string | null {
  if (reply.stop === 'max_tokens') return 'max_output_tokens';
  if (reply.stop === 'refusal') return 'content_filter';
  return null; // Responses has no stop sequences: a stop_sequence stop is a normal completion
}

function usageBody(u: ResolvedUsage): Json {
  const input = u.input + u.cacheRead + u.cacheWrite; // OpenAI input includes cached tokens
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: u.cacheRead, ...(u.cacheWrite ? { cache_write_tokens: u.cacheWrite } : {}) },
    output_tokens: u.output,
    output_tokens_details: { reasoning_tokens: u.reasoning },
    total_tokens: input + u.output,
  };
}

/** The response resource with the request's configuration echoed, as OpenAI does. */
function responseObject(req: ReceivedRequest, id: string, createdAt: number): Json {
  const b: Json = req.body ?? {};
  return {
    id,
    object: 'response',
    created_at: createdAt,
    status: 'in_progress',
    background: b.background ?? false,
    completed_at: null,
    error: null,
    incomplete_details: null,
    instructions: b.instructions ?? null,
    max_output_tokens: b.max_output_tokens ?? null,
    max_tool_calls: b.max_tool_calls ?? null,
    model: typeof b.model === 'string' ? b.model : 'scripted-model',
    output: [],
    parallel_tool_calls: b.parallel_tool_calls ?? true,
    previous_response_id: b.previous_response_id ?? null,
    prompt_cache_key: b.prompt_cache_key ?? null,
    reasoning: { effort: b.reasoning?.effort ?? null, summary: b.reasoning?.summary ?? null },
    safety_identifier: b.safety_identifier ?? null,
    service_tier: 'default',
    store: b.store ?? true,
    temperature: b.temperature ?? 1,
    text: { format: b.text?.format ?? { type: 'text' }, verbosity: b.text?.verbosity ?? 'medium' },
    tool_choice: b.tool_choice ?? 'auto',
    tools: b.tools ?? [],
    top_logprobs: b.top_logprobs ?? 0,
    top_p: b.top_p ?? 1,
    truncation: b.truncation ?? 'disabled',
    usage: null,
    user: b.user ?? null,
    metadata: b.metadata ?? {},
    presence_penalty: b.presence_penalty ?? 0,
    frequency_penalty: b.frequency_penalty ?? 0,
  };
}

const now = () => Math.floor(Date.now() / 1000);

function terminal(base: Json, reply: OkReply, items: Item[], usage: ResolvedUsage): Json {
  const reason = incompleteReason(reply);
  return {
    ...base,
    status: reason ? 'incomplete' : 'completed',
    completed_at: reason ? null : now(),
    incomplete_details: reason ? { reason } : null,
    output: items.map((i) => i.final),
    usage: usageBody(usage),
  };
}

function json(reply: OkReply, req: ReceivedRequest): unknown {
  const items = prepare(reply, req, incompleteReason(reply) !== null);
  return terminal(responseObject(req, ids.response(), now()), reply, items, resolveUsage(reply, req));
}

function stream(reply: OkReply, req: ReceivedRequest): StreamScript {
  let sequence = 0;
  const frame = (type: string, fields: Json) => namedFrame(type, { type, sequence_number: sequence++, ...fields });
  const base = responseObject(req, ids.response(), now());
  const items = prepare(reply, req, incompleteReason(reply) !== null);
  const opening = [frame('response.created', { response: base }), frame('response.in_progress', { response: base })];

  items.forEach((item, output_index) => {
    const at = { item_id: item.id, output_index };
    const { block, final } = item;
    switch (block.type) {
      case 'text': {
        const part = final.content[0];
        opening.push(frame('response.output_item.added', { output_index, item: { ...final, status: 'in_progress', content: [] } }));
        opening.push(frame('response.content_part.added', { ...at, content_index: 0, part: { ...part, text: '' } }));
        for (const delta of splitText(block.text)) opening.push(frame('response.output_text.delta', { ...at, content_index: 0, delta, logprobs: [] }));
        opening.push(frame('response.output_text.done', { ...at, content_index: 0, text: block.text, logprobs: [] }));
        opening.push(frame('response.content_part.done', { ...at, content_index: 0, part }));
        break;
      }
      case 'reasoning': {
        opening.push(frame('response.output_item.added', { output_index, item: { id: item.id, type: 'reasoning', summary: [] } }));
        final.summary.forEach((part: Json, summary_index: number) => {
          const s = { ...at, summary_index };
          opening.push(frame('response.reasoning_summary_part.added', { ...s, part: { type: 'summary_text', text: '' } }));
          for (const delta of splitText(part.text)) opening.push(frame('response.reasoning_summary_text.delta', { ...s, delta }));
          opening.push(frame('response.reasoning_summary_text.done', { ...s, text: part.text }));
          opening.push(frame('response.reasoning_summary_part.done', { ...s, part }));
        });
        break;
      }
      case 'tool-call': {
        if (final.type === 'custom_tool_call') {
          opening.push(frame('response.output_item.added', { output_index, item: { ...final, input: '' } }));
          for (const delta of splitText(block.arguments)) opening.push(frame('response.custom_tool_call_input.delta', { ...at, delta }));
          opening.push(frame('response.custom_tool_call_input.done', { ...at, input: block.arguments }));
        } else {
          opening.push(frame('response.output_item.added', { output_index, item: { ...final, status: 'in_progress', arguments: '' } }));
          for (const delta of splitText(block.arguments)) opening.push(frame('response.function_call_arguments.delta', { ...at, delta }));
          opening.push(frame('response.function_call_arguments.done', { ...at, name: block.name, arguments: block.arguments }));
        }
        break;
      }
    }
    opening.push(frame('response.output_item.done', { output_index, item: final }));
  });

  const usage = resolveUsage(reply, req);
  return {
    opening,
    finish() {
      const response = terminal(base, reply, items, usage);
      return [frame(response.status === 'completed' ? 'response.completed' : 'response.incomplete', { response })];
    },
    fail(message) {
      // Flat fields for the OpenAI SDK type, nested `error` for Open Responses: both SDK lines throw APIError.
      const error = { type: 'server_error', code: 'server_error', message, param: null };
      const failed = { ...base, status: 'failed', error: { code: 'server_error', message }, output: items.map((i) => i.final) };
      return [
        frame('error', { code: error.code, message, param: null, error }),
        frame('response.failed', { response: failed }),
      ];
    },
  };
}

export const responsesRenderer: ProtocolRenderer = {
  headers: () => ({ 'x-request-id': ids.openaiRequest(), 'openai-version': '2020-10-01', 'openai-processing-ms': '1' }),
  json,
  stream,
  error: openaiError,
};
