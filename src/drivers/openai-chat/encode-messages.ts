// IR system + turns → Chat `messages` (mapping.md §1, §2, §7, chat-completions.md §2). Every assistant
// message with tool_calls is followed by exactly one tool message per call before anything else; tool
// messages carry text only, so media from tool results moves into the user message that follows.
import { invalidRequest } from '../../errors.js';
import { fromCallerId } from '../../ir/tool-ids.js';
import { wireToolName } from '../../ir/tool-names.js';
import type {
  FilePart,
  ImagePart,
  ReasoningPart,
  ToolResultPart,
  Turn,
  UserPart,
  Warning,
  IrRequest,
} from '../../ir/types.js';
import type {
  ChatAssistantMessage,
  ChatMessage,
  ChatToolCall,
  ChatUserContentPart,
} from '../../protocols/openai-chat/request.js';
import type { DriverOptions } from '../types.js';
import { CHAT_TOOL_NAME_MAX } from './tool-lookup.js';

/** What the upstream sees for a call the caller never answered (it would reject the history otherwise). */
export const UNANSWERED_CALL_TEXT = 'Tool call was not completed.';

type UserTurn = Extract<Turn, { role: 'user' }>;
type AssistantTurn = Extract<Turn, { role: 'assistant' }>;

/** Per-request state: the calls awaiting results and which once-per-request warnings were given. */
interface EncodeState {
  readonly messages: ChatMessage[];
  readonly options: DriverOptions;
  readonly warnings: Warning[];
  /** Upstream ids of the last assistant message's calls, in call order, not yet answered. */
  pending: string[];
  warnedReasoning: boolean;
  warnedOrphan: boolean;
}

export function encodeMessages(req: IrRequest, options: DriverOptions, warnings: Warning[]): ChatMessage[] {
  const state: EncodeState = { messages: [], options, warnings, pending: [], warnedReasoning: false, warnedOrphan: false };
  let system = '';
  for (const part of req.system) {
    if (part.text.length > 0) system += (system ? '\n\n' : '') + part.text;
  }
  // One leading system message: many open-model chat templates accept no other placement.
  if (system) state.messages.push({ role: options.systemRole, content: system });
  for (let t = 0; t < req.turns.length; t++) {
    const turn = req.turns[t]!;
    if (turn.role === 'assistant') {
      answerPending(state);
      encodeAssistant(turn, state);
    } else {
      encodeUser(turn, t, state);
    }
  }
  answerPending(state);
  return state.messages;
}

function answerPending(state: EncodeState): void {
  for (const id of state.pending) state.messages.push({ role: 'tool', tool_call_id: id, content: UNANSWERED_CALL_TEXT });
  state.pending = [];
}

function encodeAssistant(turn: AssistantTurn, state: EncodeState): void {
  let text = '';
  const calls: ChatToolCall[] = [];
  let reasoning: ReasoningPart[] | undefined;
  for (const part of turn.parts) {
    switch (part.type) {
      case 'text':
        if (part.text.length > 0) text += (text ? '\n' : '') + part.text;
        break;
      case 'tool-call':
        calls.push({
          id: fromCallerId(part.id),
          type: 'function',
          function: {
            name: wireToolName(part.name, part.namespace, CHAT_TOOL_NAME_MAX),
            // Custom tools travel as functions taking {"input": string} (mapping.md §4); chat templates
            // parse arguments, so an empty string becomes an empty object.
            arguments: part.kind === 'custom' ? JSON.stringify({ input: part.arguments }) : part.arguments || '{}',
          },
        });
        break;
      case 'reasoning':
        (reasoning ??= []).push(part);
        break;
      default: {
        const never: never = part;
        return never;
      }
    }
  }
  // DeepSeek-style upstreams require the reasoning back on tool-call turns, and only there.
  const echo = state.options.echoReasoningContent && calls.length > 0;
  let reasoningText = '';
  if (reasoning) {
    for (const part of reasoning) {
      const carried = reasoningTextOf(part);
      if (carried === undefined) warnReasoning(state);
      const value = carried ?? part.text;
      if (echo && value.length > 0) reasoningText += (reasoningText ? '\n\n' : '') + value;
    }
  }
  if (text.length === 0 && calls.length === 0) return;
  const message: ChatAssistantMessage = { role: 'assistant', content: text || null };
  if (calls.length > 0) message.tool_calls = calls;
  if (echo) message.reasoning_content = reasoningText;
  state.messages.push(message);
  state.pending = calls.map((c) => c.id);
}

/** The reasoning text a chat upstream can take back; undefined when the part's carry is opaque state
 * of another family (OpenAI encrypted content, Anthropic redacted thinking) that has to be dropped. */
function reasoningTextOf(part: ReasoningPart): string | undefined {
  const carry = part.carry;
  if (!carry) return part.text;
  switch (carry.family) {
    case 'chat':
      return carry.text;
    case 'anthropic':
      return carry.block.type === 'thinking' ? carry.block.thinking : undefined;
    case 'openai':
    case 'google':
      return undefined;
    default: {
      const never: never = carry;
      return never;
    }
  }
}

function warnReasoning(state: EncodeState): void {
  if (state.warnedReasoning) return;
  state.warnedReasoning = true;
  state.warnings.push({ field: 'reasoning', message: 'opaque reasoning state from another provider family was not sent to the Chat Completions upstream' });
}

function encodeUser(turn: UserTurn, t: number, state: EncodeState): void {
  const pending = state.pending;
  state.pending = [];
  let answered: Set<string> | undefined;
  // Media from tool results first (each group introduced by a marker naming its call), then the turn's own content.
  const content: ChatUserContentPart[] = [];
  const own: ChatUserContentPart[] = [];
  for (let j = 0; j < turn.parts.length; j++) {
    const part = turn.parts[j]!;
    if (part.type !== 'tool-result') {
      const converted = userPart(part, `messages.${t}.content.${j}`);
      if (converted) own.push(converted);
      continue;
    }
    const id = fromCallerId(part.callId);
    const text = toolResultText(part, id, content, `messages.${t}.content.${j}`);
    if (pending.includes(id) && !answered?.has(id)) {
      (answered ??= new Set()).add(id);
      state.messages.push({ role: 'tool', tool_call_id: id, content: text });
    } else {
      // No call to attach it to: the upstream would reject a tool message, so the model reads it as text.
      own.push({ type: 'text', text: `Result of tool call ${id}:\n${text}` });
      if (!state.warnedOrphan) {
        state.warnedOrphan = true;
        state.warnings.push({ field: 'tool_result', message: 'a tool result without a matching tool call was sent as user text' });
      }
    }
  }
  for (const id of pending) {
    if (!answered?.has(id)) state.messages.push({ role: 'tool', tool_call_id: id, content: UNANSWERED_CALL_TEXT });
  }
  for (const part of own) content.push(part);
  if (content.length === 0) return;
  let onlyText = true;
  for (const part of content) if (part.type !== 'text') onlyText = false;
  if (!onlyText) {
    state.messages.push({ role: 'user', content });
    return;
  }
  let text = '';
  for (const part of content) text += (text ? '\n' : '') + (part as { text: string }).text;
  state.messages.push({ role: 'user', content: text });
}

/** The tool message text; images and non-text files go to `moved` behind a marker naming the call. */
function toolResultText(part: ToolResultPart, id: string, moved: ChatUserContentPart[], param: string): string {
  let text = '';
  let marked = false;
  for (let k = 0; k < part.content.length; k++) {
    const item = part.content[k]!;
    const converted = userPart(item, `${param}.content.${k}`);
    if (!converted) continue;
    if (converted.type === 'text') {
      text += (text ? '\n' : '') + converted.text;
      continue;
    }
    if (!marked) {
      marked = true;
      moved.push({ type: 'text', text: `[Attachments from the result of tool call ${id}]` });
    }
    moved.push(converted);
  }
  if (part.isError) return text ? 'Error: ' + text : 'Error';
  return text;
}

/** One user content part; undefined for empty text. Provider-scoped file ids cannot cross providers. */
function userPart(part: Exclude<UserPart, ToolResultPart>, param: string): ChatUserContentPart | undefined {
  switch (part.type) {
    case 'text':
      return part.text.length > 0 ? { type: 'text', text: part.text } : undefined;
    case 'image':
      return imagePart(part, param);
    case 'file':
      return filePart(part, param);
    default: {
      const never: never = part;
      return never;
    }
  }
}

function imagePart(part: ImagePart, param: string): ChatUserContentPart {
  const source = part.source;
  let url: string;
  switch (source.kind) {
    case 'base64':
      url = `data:${source.mediaType};base64,${source.data}`;
      break;
    case 'url':
      url = source.url;
      break;
    case 'file-id':
      throw invalidRequest('image file ids are provider-scoped and cannot be sent to a Chat Completions upstream', param);
    default: {
      const never: never = source;
      return never;
    }
  }
  return { type: 'image_url', image_url: part.detail === undefined ? { url } : { url, detail: part.detail } };
}

function filePart(part: FilePart, param: string): ChatUserContentPart | undefined {
  const source = part.source;
  switch (source.kind) {
    case 'text': {
      const text = part.title ? `${part.title}\n\n${source.data}` : source.data;
      return text.length > 0 ? { type: 'text', text } : undefined;
    }
    case 'base64': {
      const filename = part.filename ?? part.title ?? (source.mediaType === 'application/pdf' ? 'document.pdf' : 'document');
      return { type: 'file', file: { filename, file_data: `data:${source.mediaType};base64,${source.data}` } };
    }
    case 'url':
      throw invalidRequest('document URLs cannot be sent to a Chat Completions upstream; send the document as base64', param);
    case 'file-id':
      throw invalidRequest('file ids are provider-scoped and cannot be sent to a Chat Completions upstream', param);
    default: {
      const never: never = source;
      return never;
    }
  }
}
