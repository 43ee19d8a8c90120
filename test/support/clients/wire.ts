// Reading both sides of the wire for the client tests: the gateway's answers to the client (SSE or JSON, per front
// door) and the requests on either side (client → gateway, gateway → upstream), in one small normalised shape.
import type { Protocol } from '../scripted-upstream/index.js';

type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
export type Door = 'messages' | 'responses' | 'chat' | 'gemini';

export interface SseEvent {
  event: string;
  data: Any | string;
}

/** Parses an SSE body; `event` falls back to data.type (Responses frames carry both). */
export function parseSse(text: string): SseEvent[] {
  const out: SseEvent[] = [];
  for (const frame of text.split(/\r?\n\r?\n/)) {
    let event = '';
    const data: string[] = [];
    for (const line of frame.split(/\r?\n/)) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (!event && data.length === 0) continue;
    const raw = data.join('\n');
    let parsed: Any | string = raw;
    try {
      parsed = JSON.parse(raw) as Any;
    } catch {
      /* [DONE] or junk: keep the text */
    }
    out.push({ event: event || (typeof parsed === 'object' && parsed ? String(parsed.type ?? '') : ''), data: parsed });
  }
  return out;
}

export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** What the gateway answered on one exchange, normalised across the two front doors. */
export interface DoorAnswer {
  streamed: boolean;
  events: SseEvent[];
  toolCalls: ToolCall[];
  /** Opaque reasoning carriers: Anthropic thinking signatures / redacted data, Responses encrypted_content. */
  opaque: string[];
  reasoningText: string;
  text: string;
  /** message_stop / response.completed seen (or a complete JSON body). */
  terminated: boolean;
  stop?: string;
  /** First error the door reported in-stream or as a body. */
  error?: string;
  /** The first malformed thing in the stream, if any (unparseable data, missing id/name, bad ordering). */
  malformed?: string;
}

function messagesAnswer(text: string, contentType: string): DoorAnswer {
  const a: DoorAnswer = { streamed: contentType.includes('event-stream'), events: [], toolCalls: [], opaque: [], reasoningText: '', text: '', terminated: false };
  if (!a.streamed) {
    let body: Any;
    try {
      body = JSON.parse(text) as Any;
    } catch {
      a.malformed = `body is not JSON: ${text.slice(0, 200)}`;
      return a;
    }
    if (body.type === 'error') a.error = `${body.error?.type}: ${body.error?.message}`;
    for (const b of (body.content ?? []) as Any[]) {
      if (b.type === 'text') a.text += b.text;
      else if (b.type === 'thinking') (a.reasoningText += b.thinking ?? '', a.opaque.push(b.signature ?? ''));
      else if (b.type === 'redacted_thinking') a.opaque.push(b.data ?? '');
      else if (b.type === 'tool_use') a.toolCalls.push({ id: b.id, name: b.name, arguments: JSON.stringify(b.input ?? {}) });
    }
    a.stop = body.stop_reason;
    a.terminated = body.type === 'message';
    return a;
  }
  a.events = parseSse(text);
  const blocks = new Map<number, Any>();
  for (const [i, e] of a.events.entries()) {
    const d = e.data;
    if (typeof d !== 'object' || d === null) {
      a.malformed ??= `event #${i} (${e.event}) has non-JSON data: ${String(d).slice(0, 120)}`;
      continue;
    }
    if (e.event !== d.type && d.type !== undefined) a.malformed ??= `event #${i}: "event: ${e.event}" but data.type is "${d.type}"`;
    switch (e.event) {
      case 'content_block_start':
        if (blocks.has(d.index)) a.malformed ??= `event #${i}: content_block_start reuses index ${d.index}`;
        blocks.set(d.index, { ...d.content_block, _json: '', _thinking: '', _signature: d.content_block?.signature ?? '' });
        break;
      case 'content_block_delta': {
        const b = blocks.get(d.index);
        if (!b) {
          a.malformed ??= `event #${i}: content_block_delta for index ${d.index} that was never started`;
          break;
        }
        const delta = d.delta ?? {};
        if (delta.type === 'text_delta') b.text = (b.text ?? '') + delta.text;
        else if (delta.type === 'input_json_delta') b._json += delta.partial_json ?? '';
        else if (delta.type === 'thinking_delta') b._thinking += delta.thinking ?? '';
        else if (delta.type === 'signature_delta') b._signature += delta.signature ?? '';
        break;
      }
      case 'content_block_stop': {
        const b = blocks.get(d.index);
        if (!b) a.malformed ??= `event #${i}: content_block_stop for index ${d.index} that was never started`;
        else if (b.type === 'text') a.text += b.text ?? '';
        else if (b.type === 'thinking') (a.reasoningText += b._thinking, a.opaque.push(b._signature));
        else if (b.type === 'redacted_thinking') a.opaque.push(b.data ?? '');
        else if (b.type === 'tool_use') {
          if (!b.id || !b.name) a.malformed ??= `event #${i}: tool_use block without id or name`;
          a.toolCalls.push({ id: b.id, name: b.name, arguments: b._json === '' ? JSON.stringify(b.input ?? {}) : b._json });
        }
        break;
      }
      case 'message_delta':
        a.stop = d.delta?.stop_reason ?? a.stop;
        break;
      case 'message_stop':
        a.terminated = true;
        break;
      case 'error':
        a.error ??= `${d.error?.type}: ${d.error?.message}`;
        break;
      default:
        break;
    }
  }
  return a;
}

function responsesAnswer(text: string, contentType: string): DoorAnswer {
  const a: DoorAnswer = { streamed: contentType.includes('event-stream'), events: [], toolCalls: [], opaque: [], reasoningText: '', text: '', terminated: false };
  const takeOutput = (items: Any[]) => {
    for (const item of items) {
      if (item.type === 'message') a.text += ((item.content ?? []) as Any[]).map((c) => c.text ?? c.refusal ?? '').join('');
      else if (item.type === 'function_call') a.toolCalls.push({ id: item.call_id, name: item.name, arguments: item.arguments ?? '' });
      else if (item.type === 'custom_tool_call') a.toolCalls.push({ id: item.call_id, name: item.name, arguments: item.input ?? '' });
      else if (item.type === 'reasoning') {
        a.reasoningText += ((item.summary ?? []) as Any[]).map((s) => s.text ?? '').join('');
        if (item.encrypted_content) a.opaque.push(item.encrypted_content);
      }
    }
  };
  if (!a.streamed) {
    let body: Any;
    try {
      body = JSON.parse(text) as Any;
    } catch {
      a.malformed = `body is not JSON: ${text.slice(0, 200)}`;
      return a;
    }
    if (body.error) a.error = `${body.error.type ?? body.error.code}: ${body.error.message}`;
    takeOutput(body.output ?? []);
    a.stop = body.status;
    a.terminated = body.object === 'response';
    return a;
  }
  a.events = parseSse(text);
  const done: Any[] = [];
  let lastSeq = -1;
  for (const [i, e] of a.events.entries()) {
    const d = e.data;
    if (typeof d !== 'object' || d === null) {
      a.malformed ??= `event #${i} (${e.event}) has non-JSON data: ${String(d).slice(0, 120)}`;
      continue;
    }
    if (typeof d.sequence_number === 'number') {
      if (d.sequence_number <= lastSeq) a.malformed ??= `event #${i} (${e.event}): sequence_number ${d.sequence_number} after ${lastSeq}`;
      lastSeq = d.sequence_number;
    }
    switch (e.event) {
      case 'response.output_item.done':
        done.push(d.item ?? {});
        break;
      case 'response.completed':
      case 'response.incomplete':
        a.terminated = true;
        a.stop = d.response?.status;
        if (done.length === 0) takeOutput(d.response?.output ?? []);
        break;
      case 'response.failed':
        a.error ??= `response.failed: ${JSON.stringify(d.response?.error ?? d)}`;
        break;
      case 'error':
        a.error ??= `error: ${d.code ?? d.error?.code ?? ''} ${d.message ?? d.error?.message ?? JSON.stringify(d)}`;
        break;
      default:
        break;
    }
  }
  takeOutput(done);
  return a;
}

/** Chat Completions: `chat.completion` JSON, or `data:` chunks ending in `data: [DONE]`. Tool calls are assembled
 *  per `index` (id and name on the first delta); opaque state is read from `reasoning_details` entries. */
function chatAnswer(text: string, contentType: string): DoorAnswer {
  const a: DoorAnswer = { streamed: contentType.includes('event-stream'), events: [], toolCalls: [], opaque: [], reasoningText: '', text: '', terminated: false };
  const takeDetails = (details: unknown) => {
    for (const d of (Array.isArray(details) ? details : []) as Any[]) {
      const carried = d.type === 'reasoning.encrypted' ? d.data : d.signature;
      if (typeof carried === 'string' && carried) a.opaque.push(carried);
    }
  };
  if (!a.streamed) {
    let body: Any;
    try {
      body = JSON.parse(text) as Any;
    } catch {
      a.malformed = `body is not JSON: ${text.slice(0, 200)}`;
      return a;
    }
    if (body.error) a.error = `${body.error.type ?? body.error.code}: ${body.error.message}`;
    const choice: Any = body.choices?.[0] ?? {};
    const m: Any = choice.message ?? {};
    a.text = typeof m.content === 'string' ? m.content : '';
    a.reasoningText = typeof m.reasoning_content === 'string' ? m.reasoning_content : '';
    takeDetails(m.reasoning_details);
    for (const tc of (m.tool_calls ?? []) as Any[]) a.toolCalls.push({ id: tc.id, name: tc.function?.name, arguments: tc.function?.arguments ?? '' });
    a.stop = choice.finish_reason;
    a.terminated = body.object === 'chat.completion';
    return a;
  }
  a.events = parseSse(text);
  const calls = new Map<number, ToolCall>();
  for (const [i, e] of a.events.entries()) {
    const d = e.data;
    if (d === '[DONE]') {
      a.terminated = true;
      continue;
    }
    if (a.terminated) a.malformed ??= `event #${i} comes after data: [DONE]`;
    if (typeof d !== 'object' || d === null) {
      a.malformed ??= `event #${i} has non-JSON data: ${String(d).slice(0, 120)}`;
      continue;
    }
    if (d.error) {
      a.error ??= `${d.error.type ?? d.error.code}: ${d.error.message}`;
      continue;
    }
    if (d.object !== 'chat.completion.chunk') a.malformed ??= `event #${i}: object is ${JSON.stringify(d.object)}, expected chat.completion.chunk`;
    for (const choice of (d.choices ?? []) as Any[]) {
      const delta: Any = choice.delta ?? {};
      if (typeof delta.content === 'string') a.text += delta.content;
      if (typeof delta.reasoning_content === 'string') a.reasoningText += delta.reasoning_content;
      takeDetails(delta.reasoning_details);
      for (const tc of (delta.tool_calls ?? []) as Any[]) {
        const known = calls.get(tc.index);
        if (!known) {
          if (!tc.id || !tc.function?.name) a.malformed ??= `event #${i}: tool call index ${tc.index} starts without id or name`;
          calls.set(tc.index, { id: tc.id, name: tc.function?.name, arguments: tc.function?.arguments ?? '' });
        } else known.arguments += tc.function?.arguments ?? '';
      }
      if (choice.finish_reason) a.stop = choice.finish_reason;
    }
  }
  a.toolCalls = [...calls.values()];
  return a;
}

/** Gemini: one GenerateContentResponse as JSON, or `data:` frames of them (`alt=sse`); the answer is over when a
 *  candidate carries its finishReason. Opaque state is the thoughtSignature on any part. */
function geminiAnswer(text: string, contentType: string): DoorAnswer {
  const a: DoorAnswer = { streamed: contentType.includes('event-stream'), events: [], toolCalls: [], opaque: [], reasoningText: '', text: '', terminated: false };
  const take = (frame: Any, i: number) => {
    if (frame.error) {
      a.error ??= `${frame.error.status ?? frame.error.code}: ${frame.error.message}`;
      return;
    }
    const candidate: Any = frame.candidates?.[0];
    if (!candidate) return;
    if (a.terminated) a.malformed ??= `frame #${i} comes after the finishReason frame`;
    for (const part of (candidate.content?.parts ?? []) as Any[]) {
      if (typeof part.thoughtSignature === 'string' && part.thoughtSignature) a.opaque.push(part.thoughtSignature);
      if (part.functionCall) {
        if (!part.functionCall.name) a.malformed ??= `frame #${i}: functionCall without a name`;
        a.toolCalls.push({ id: part.functionCall.id ?? '', name: part.functionCall.name, arguments: JSON.stringify(part.functionCall.args ?? {}) });
      } else if (typeof part.text === 'string') {
        if (part.thought) a.reasoningText += part.text;
        else a.text += part.text;
      }
    }
    if (candidate.finishReason) {
      a.stop = candidate.finishReason;
      a.terminated = true;
    }
  };
  if (!a.streamed) {
    let body: Any;
    try {
      body = JSON.parse(text) as Any;
    } catch {
      a.malformed = `body is not JSON: ${text.slice(0, 200)}`;
      return a;
    }
    for (const [i, frame] of (Array.isArray(body) ? body : [body]).entries()) take(frame as Any, i);
    return a;
  }
  a.events = parseSse(text);
  for (const [i, e] of a.events.entries()) {
    if (typeof e.data !== 'object' || e.data === null) a.malformed ??= `frame #${i} has non-JSON data: ${String(e.data).slice(0, 120)}`;
    else take(e.data, i);
  }
  return a;
}

export function readDoorAnswer(door: Door, responseText: string, contentType: string | string[] | undefined): DoorAnswer {
  const ct = String(contentType ?? '');
  switch (door) {
    case 'messages':
      return messagesAnswer(responseText, ct);
    case 'responses':
      return responsesAnswer(responseText, ct);
    case 'chat':
      return chatAnswer(responseText, ct);
    case 'gemini':
      return geminiAnswer(responseText, ct);
  }
}

/** The loop-relevant content of one request, on either side of the gateway, in any of the three protocols. */
export interface RequestView {
  model: string;
  toolNames: string[];
  /** Tool calls already in the history (assistant side). */
  historyCalls: { id: string; name: string }[];
  /** Tool results, in order. */
  toolResults: { id: string; text: string }[];
  /** Opaque reasoning state sent back: thinking signatures / redacted data / encrypted_content. */
  opaque: string[];
  /** Chat only: reasoning_content echoed on assistant messages. */
  reasoningContent: string[];
  /** Whether the request asked for reasoning.encrypted_content (Responses). */
  includesEncryptedReasoning: boolean;
  /** The request's reasoning switches, as JSON: Messages {thinking, effort}, Responses reasoning, Chat reasoning_effort. */
  reasoningKnobs: string;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((c: Any) => (typeof c === 'string' ? c : c?.text ?? '')).join('');
  return '';
}

/** `path`: the request path, where Gemini names the model. */
export function viewRequest(protocol: Protocol, body: unknown, path = ''): RequestView {
  const b: Any = typeof body === 'object' && body !== null ? (body as Any) : {};
  const knobs =
    protocol === 'messages'
      ? { thinking: b.thinking, effort: b.output_config?.effort }
      : protocol === 'responses'
        ? { reasoning: b.reasoning }
        : protocol === 'gemini'
          ? { thinkingConfig: b.generationConfig?.thinkingConfig }
          : { reasoning_effort: b.reasoning_effort };
  const v: RequestView = {
    model: protocol === 'gemini' ? decodeURIComponent(/\/models\/([^/:]+):/.exec(path)?.[1] ?? '') : String(b.model ?? ''),
    toolNames: [],
    historyCalls: [],
    toolResults: [],
    opaque: [],
    reasoningContent: [],
    includesEncryptedReasoning: false,
    reasoningKnobs: JSON.stringify(knobs),
  };
  const tools: Any[] = Array.isArray(b.tools) ? b.tools : [];
  if (protocol === 'messages') {
    v.toolNames = tools.map((t) => t.name);
    for (const m of (Array.isArray(b.messages) ? b.messages : []) as Any[]) {
      if (!Array.isArray(m.content)) continue;
      for (const c of m.content as Any[]) {
        if (c.type === 'tool_use') v.historyCalls.push({ id: c.id, name: c.name });
        else if (c.type === 'tool_result') v.toolResults.push({ id: c.tool_use_id, text: textOf(c.content) });
        else if (c.type === 'thinking') v.opaque.push(c.signature);
        else if (c.type === 'redacted_thinking') v.opaque.push(c.data);
      }
    }
  } else if (protocol === 'responses') {
    v.toolNames = tools.map((t) => t.name ?? t.type);
    v.includesEncryptedReasoning = Array.isArray(b.include) && b.include.includes('reasoning.encrypted_content');
    for (const item of (Array.isArray(b.input) ? b.input : []) as Any[]) {
      if (item.type === 'function_call' || item.type === 'custom_tool_call') v.historyCalls.push({ id: item.call_id, name: item.name });
      else if (item.type === 'function_call_output' || item.type === 'custom_tool_call_output') v.toolResults.push({ id: item.call_id, text: textOf(item.output) });
      else if (item.type === 'reasoning' && item.encrypted_content) v.opaque.push(item.encrypted_content);
    }
  } else if (protocol === 'gemini') {
    v.toolNames = tools.flatMap((t) => (t.functionDeclarations ?? []).map((d: Any) => d.name));
    for (const c of (Array.isArray(b.contents) ? b.contents : []) as Any[]) {
      for (const part of (c.parts ?? []) as Any[]) {
        if (typeof part.thoughtSignature === 'string') v.opaque.push(part.thoughtSignature);
        if (part.functionCall) v.historyCalls.push({ id: part.functionCall.id, name: part.functionCall.name });
        else if (part.functionResponse) {
          const r = part.functionResponse.response ?? {};
          v.toolResults.push({ id: part.functionResponse.id, text: typeof r.output === 'string' ? r.output : typeof r.error === 'string' ? r.error : JSON.stringify(r) });
        }
      }
    }
  } else {
    v.toolNames = tools.map((t) => t.function?.name ?? t.custom?.name ?? t.type);
    for (const m of (Array.isArray(b.messages) ? b.messages : []) as Any[]) {
      if (m.role === 'assistant') {
        for (const tc of (m.tool_calls ?? []) as Any[]) v.historyCalls.push({ id: tc.id, name: tc.function?.name ?? tc.custom?.name });
        if (typeof m.reasoning_content === 'string') v.reasoningContent.push(m.reasoning_content);
        for (const d of (Array.isArray(m.reasoning_details) ? m.reasoning_details : []) as Any[]) {
          const carried = d.type === 'reasoning.encrypted' ? d.data : d.signature;
          if (typeof carried === 'string' && carried) v.opaque.push(carried);
        }
      } else if (m.role === 'tool') v.toolResults.push({ id: m.tool_call_id, text: textOf(m.content) });
    }
  }
  return v;
}
