// The three front doors as the official SDKs use them, behind one small interface so the conformance
// matrix can run every scenario through each: build a request, send it streamed or not, read the
// answer back in a normalised form, and continue the conversation from the raw answer.
import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import type { Harness } from './gateway-harness.js';

export type Door = 'messages' | 'responses' | 'chat';

export interface Ask {
  system?: string;
  /** Alternating turns, starting and ending with user. */
  turns: { role: 'user' | 'assistant'; text: string }[];
  tools?: boolean;
  /** Force the get_weather tool. */
  forceTool?: boolean;
  maxTokens?: number;
  stop?: string[];
  image?: { base64: string; mediaType: string } | { url: string };
  reasoning?: boolean;
}

export interface Answer {
  texts: string[];
  toolCalls: { id: string; name: string; args: unknown }[];
  reasoning: { text: string; opaque: string | null }[];
  /** Messages stop_reason, Responses status[/incomplete reason], or Chat finish_reason. */
  stop: string;
  stopSequence?: string | null;
  usage: { input: number; output: number; total?: number };
  model: string;
  headers?: Headers;
}

export interface Exchange {
  answer: Answer;
  /** Send the tool results back (ids as the client received them). */
  continueWith(results: { id: string; output: string }[], stream: boolean): Promise<Exchange>;
}

export const WEATHER_TOOL = {
  name: 'get_weather',
  description: 'Current weather for a city',
  schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

export async function ask(h: Harness, door: Door, model: string, a: Ask, stream: boolean, withHeaders = false): Promise<Exchange> {
  if (door === 'chat') return askChat(h, model, a, stream, withHeaders);
  return door === 'messages' ? askMessages(h, model, a, stream, withHeaders) : askResponses(h, model, a, stream, withHeaders);
}

// ---------------------------------------------------------------------------------------------

async function askMessages(h: Harness, model: string, a: Ask, stream: boolean, withHeaders: boolean): Promise<Exchange> {
  const messages: Anthropic.MessageParam[] = a.turns.map((t, i) => {
    if (i === a.turns.length - 1 && t.role === 'user' && a.image) {
      const source: Anthropic.ImageBlockParam['source'] =
        'url' in a.image
          ? { type: 'url', url: a.image.url }
          : { type: 'base64', media_type: a.image.mediaType as 'image/png', data: a.image.base64 };
      return { role: 'user', content: [{ type: 'image', source }, { type: 'text', text: t.text }] };
    }
    return { role: t.role, content: t.text };
  });
  const params: Anthropic.MessageCreateParamsNonStreaming = {
    model,
    max_tokens: a.maxTokens ?? (a.reasoning ? 4096 : 1024),
    messages,
  };
  if (a.system) params.system = a.system;
  if (a.tools) params.tools = [{ name: WEATHER_TOOL.name, description: WEATHER_TOOL.description, input_schema: WEATHER_TOOL.schema as never }];
  if (a.forceTool) params.tool_choice = { type: 'tool', name: WEATHER_TOOL.name };
  if (a.stop) params.stop_sequences = a.stop;
  if (a.reasoning) params.thinking = { type: 'enabled', budget_tokens: 2048 };
  return sendMessages(h, params, stream, withHeaders);
}

async function sendMessages(h: Harness, params: Anthropic.MessageCreateParamsNonStreaming, stream: boolean, withHeaders: boolean): Promise<Exchange> {
  let msg: Anthropic.Message;
  let headers: Headers | undefined;
  if (stream) {
    msg = await h.anthropic.messages.stream(params).finalMessage();
  } else if (withHeaders) {
    const r = await h.anthropic.messages.create(params).withResponse();
    msg = r.data;
    headers = r.response.headers;
  } else {
    msg = await h.anthropic.messages.create(params);
  }
  const answer: Answer = {
    texts: [],
    toolCalls: [],
    reasoning: [],
    stop: msg.stop_reason ?? 'null',
    stopSequence: msg.stop_sequence,
    usage: { input: msg.usage.input_tokens + (msg.usage.cache_read_input_tokens ?? 0) + (msg.usage.cache_creation_input_tokens ?? 0), output: msg.usage.output_tokens },
    model: msg.model,
    headers,
  };
  for (const b of msg.content) {
    if (b.type === 'text') answer.texts.push(b.text);
    else if (b.type === 'tool_use') answer.toolCalls.push({ id: b.id, name: b.name, args: b.input });
    else if (b.type === 'thinking') answer.reasoning.push({ text: b.thinking, opaque: b.signature });
    else if (b.type === 'redacted_thinking') answer.reasoning.push({ text: '', opaque: b.data });
  }
  return {
    answer,
    continueWith(results, nextStream) {
      const next: Anthropic.MessageCreateParamsNonStreaming = {
        ...params,
        messages: [
          ...params.messages,
          { role: 'assistant', content: msg.content as Anthropic.ContentBlockParam[] },
          { role: 'user', content: results.map((r) => ({ type: 'tool_result' as const, tool_use_id: r.id, content: r.output })) },
        ],
      };
      delete next.tool_choice;
      return sendMessages(h, next, nextStream, false);
    },
  };
}

// ---------------------------------------------------------------------------------------------

async function askResponses(h: Harness, model: string, a: Ask, stream: boolean, withHeaders: boolean): Promise<Exchange> {
  const input: OpenAI.Responses.ResponseInputItem[] = a.turns.map((t, i) => {
    if (i === a.turns.length - 1 && t.role === 'user' && a.image) {
      const url = 'url' in a.image ? a.image.url : `data:${a.image.mediaType};base64,${a.image.base64}`;
      return { role: 'user', content: [{ type: 'input_image', image_url: url, detail: 'auto' }, { type: 'input_text', text: t.text }] };
    }
    return { role: t.role, content: t.text };
  });
  const params: OpenAI.Responses.ResponseCreateParamsNonStreaming = { model, input, store: false };
  if (a.system) params.instructions = a.system;
  if (a.maxTokens) params.max_output_tokens = a.maxTokens;
  if (a.tools) {
    params.tools = [{ type: 'function', name: WEATHER_TOOL.name, description: WEATHER_TOOL.description, parameters: WEATHER_TOOL.schema, strict: false }];
  }
  if (a.forceTool) params.tool_choice = { type: 'function', name: WEATHER_TOOL.name };
  if (a.reasoning) {
    params.reasoning = { effort: 'medium', summary: 'auto' };
    params.include = ['reasoning.encrypted_content'];
  }
  return sendResponses(h, params, stream, withHeaders);
}

async function sendResponses(h: Harness, params: OpenAI.Responses.ResponseCreateParamsNonStreaming, stream: boolean, withHeaders: boolean): Promise<Exchange> {
  let resp: OpenAI.Responses.Response;
  let headers: Headers | undefined;
  if (stream) {
    resp = await h.openai.responses.stream(params as Parameters<typeof h.openai.responses.stream>[0]).finalResponse();
  } else if (withHeaders) {
    const r = await h.openai.responses.create(params).withResponse();
    resp = r.data;
    headers = r.response.headers;
  } else {
    resp = await h.openai.responses.create(params);
  }
  const answer: Answer = {
    texts: [],
    toolCalls: [],
    reasoning: [],
    stop: resp.status + (resp.incomplete_details?.reason ? '/' + resp.incomplete_details.reason : ''),
    usage: { input: resp.usage?.input_tokens ?? -1, output: resp.usage?.output_tokens ?? -1, total: resp.usage?.total_tokens },
    model: resp.model,
    headers,
  };
  for (const item of resp.output) {
    if (item.type === 'message') {
      for (const c of item.content) if (c.type === 'output_text') answer.texts.push(c.text);
    } else if (item.type === 'function_call') {
      answer.toolCalls.push({ id: item.call_id, name: item.name, args: JSON.parse(item.arguments || '{}') });
    } else if (item.type === 'reasoning') {
      answer.reasoning.push({ text: item.summary.map((s) => s.text).join('\n\n'), opaque: item.encrypted_content ?? null });
    }
  }
  return {
    answer,
    continueWith(results, nextStream) {
      const prior = Array.isArray(params.input) ? params.input : [];
      const next: OpenAI.Responses.ResponseCreateParamsNonStreaming = {
        ...params,
        input: [
          ...prior,
          ...(resp.output as OpenAI.Responses.ResponseInputItem[]),
          ...results.map((r) => ({ type: 'function_call_output' as const, call_id: r.id, output: r.output })),
        ],
      };
      delete next.tool_choice;
      return sendResponses(h, next, nextStream, false);
    },
  };
}

// ---------------------------------------------------------------------------------------------

type ChatParams = OpenAI.Chat.ChatCompletionCreateParamsNonStreaming;
/** The assistant message as a chat client keeps it: the SDK's fields plus the reasoning extensions. */
type ChatAssistant = OpenAI.Chat.ChatCompletionMessage & { reasoning_content?: string | null; reasoning_details?: Record<string, unknown>[] };

async function askChat(h: Harness, model: string, a: Ask, stream: boolean, withHeaders: boolean): Promise<Exchange> {
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [];
  if (a.system) messages.push({ role: 'system', content: a.system });
  a.turns.forEach((t, i) => {
    if (i === a.turns.length - 1 && t.role === 'user' && a.image) {
      const url = 'url' in a.image ? a.image.url : `data:${a.image.mediaType};base64,${a.image.base64}`;
      messages.push({ role: 'user', content: [{ type: 'image_url', image_url: { url, detail: 'auto' } }, { type: 'text', text: t.text }] });
    } else messages.push({ role: t.role, content: t.text });
  });
  const params: ChatParams = { model, messages };
  if (a.maxTokens) params.max_completion_tokens = a.maxTokens;
  if (a.tools) params.tools = [{ type: 'function', function: { name: WEATHER_TOOL.name, description: WEATHER_TOOL.description, parameters: WEATHER_TOOL.schema } }];
  if (a.forceTool) params.tool_choice = { type: 'function', function: { name: WEATHER_TOOL.name } };
  if (a.stop) params.stop = a.stop;
  if (a.reasoning) params.reasoning_effort = 'medium';
  return sendChat(h, params, stream, withHeaders);
}

/** A stream read chunk by chunk, as chat clients accumulate it (the SDK's own helper keeps neither
 * reasoning_content nor reasoning_details): the message, finish reason and usage. */
async function readChatStream(h: Harness, params: ChatParams): Promise<OpenAI.Chat.ChatCompletion> {
  const s = await h.openai.chat.completions.create({ ...params, stream: true, stream_options: { include_usage: true } });
  const message: ChatAssistant = { role: 'assistant', content: null, refusal: null };
  const calls: OpenAI.Chat.ChatCompletionMessageFunctionToolCall[] = [];
  let finish: OpenAI.Chat.ChatCompletion.Choice['finish_reason'] = 'stop';
  let usage: OpenAI.CompletionUsage | undefined;
  let modelName = '';
  for await (const chunk of s) {
    modelName = chunk.model;
    if (chunk.usage) usage = chunk.usage;
    const choice = chunk.choices[0];
    if (!choice) continue;
    const d = choice.delta as OpenAI.Chat.ChatCompletionChunk.Choice.Delta & { reasoning_content?: string; reasoning_details?: Record<string, unknown>[] };
    if (d.content) message.content = (message.content ?? '') + d.content;
    if (d.reasoning_content) message.reasoning_content = (message.reasoning_content ?? '') + d.reasoning_content;
    if (d.reasoning_details) message.reasoning_details = [...(message.reasoning_details ?? []), ...d.reasoning_details];
    for (const tc of d.tool_calls ?? []) {
      const at = (calls[tc.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } });
      if (tc.id) at.id = tc.id;
      if (tc.function?.name) at.function.name = tc.function.name;
      if (tc.function?.arguments) at.function.arguments += tc.function.arguments;
    }
    if (choice.finish_reason) finish = choice.finish_reason;
  }
  if (calls.length) message.tool_calls = calls;
  return {
    id: 'streamed',
    object: 'chat.completion',
    created: 0,
    model: modelName,
    choices: [{ index: 0, message, finish_reason: finish, logprobs: null }],
    usage,
  };
}

async function sendChat(h: Harness, params: ChatParams, stream: boolean, withHeaders: boolean): Promise<Exchange> {
  let completion: OpenAI.Chat.ChatCompletion;
  let headers: Headers | undefined;
  if (stream) {
    completion = await readChatStream(h, params);
  } else if (withHeaders) {
    const r = await h.openai.chat.completions.create(params).withResponse();
    completion = r.data;
    headers = r.response.headers;
  } else {
    completion = await h.openai.chat.completions.create(params);
  }
  const choice = completion.choices[0]!;
  const msg = choice.message as ChatAssistant;
  const answer: Answer = {
    texts: msg.content ? [msg.content] : [],
    toolCalls: [],
    reasoning: [],
    stop: choice.finish_reason,
    usage: { input: completion.usage?.prompt_tokens ?? -1, output: completion.usage?.completion_tokens ?? -1, total: completion.usage?.total_tokens },
    model: completion.model,
    headers,
  };
  for (const c of msg.tool_calls ?? []) {
    if (c.type === 'function') answer.toolCalls.push({ id: c.id, name: c.function.name, args: JSON.parse(c.function.arguments || '{}') });
  }
  if (msg.reasoning_content) {
    // The opaque state a chat client carries back: the vendor's own signature or blob, in reasoning_details.
    const detail = msg.reasoning_details?.[0];
    const opaque = detail ? ((detail.signature ?? detail.data ?? null) as string | null) : null;
    answer.reasoning.push({ text: msg.reasoning_content, opaque });
  } else if (msg.reasoning_details?.length) {
    const detail = msg.reasoning_details[0]!;
    answer.reasoning.push({ text: '', opaque: (detail.signature ?? detail.data ?? null) as string | null });
  }
  return {
    answer,
    continueWith(results, nextStream) {
      const echoed: Record<string, unknown> = { role: 'assistant', content: msg.content ?? null };
      if (msg.tool_calls?.length) echoed.tool_calls = msg.tool_calls;
      if (msg.reasoning_content) echoed.reasoning_content = msg.reasoning_content;
      if (msg.reasoning_details) echoed.reasoning_details = msg.reasoning_details;
      const next: ChatParams = {
        ...params,
        messages: [
          ...params.messages,
          echoed as unknown as OpenAI.Chat.ChatCompletionAssistantMessageParam,
          ...results.map((r) => ({ role: 'tool' as const, tool_call_id: r.id, content: r.output })),
        ],
      };
      delete next.tool_choice;
      return sendChat(h, next, nextStream, false);
    },
  };
}
