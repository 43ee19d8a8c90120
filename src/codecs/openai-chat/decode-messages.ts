// Chat `messages` → IR system text and turns (mapping.md §1–§3, §6). System and developer messages
// join the system prompt in order (one leading system prompt is what every upstream takes); tool (and
// legacy function) results join the user turn that follows the calls, before its text, as the
// Messages and Gemini upstreams need; an assistant message's reasoning is restored from
// `reasoning_details` (reasoning-details.ts), else kept as text from `reasoning_content`/`reasoning`.
import type { MediaUrlRule } from '../../ir/media-url.js';
import type { AssistantPart, IrRequest, ReasoningPart, TextPart, ToolKind, ToolResultContent, UserPart, Warning } from '../../ir/types.js';
import type { AssistantMessageBody, ChatMessageParamBody } from '../../protocols/openai-chat/door-request.js';
import { userContentPart } from './decode-content.js';
import { decodeReasoningDetail, type DecodedDetail } from './reasoning-details.js';

interface DecodeState {
  ir: IrRequest;
  warnings: Warning[];
  mediaUrls: MediaUrlRule;
  /** Call id → its kind, for the results that answer it. */
  callKinds: Map<string, ToolKind>;
  /** Legacy `function_call`s not yet answered by a `function` message: their generated ids. */
  legacyCalls: { id: string; name: string }[];
  conversationStarted: boolean;
  warnedLateSystem: boolean;
}

export function decodeMessages(messages: readonly ChatMessageParamBody[], ir: IrRequest, warnings: Warning[], mediaUrls: MediaUrlRule): void {
  const state: DecodeState = { ir, warnings, mediaUrls, callKinds: new Map(), legacyCalls: [], conversationStarted: false, warnedLateSystem: false };
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    const param = `messages[${i}]`;
    switch (m.role) {
      case 'system':
      case 'developer':
        if (state.conversationStarted && !state.warnedLateSystem) {
          state.warnedLateSystem = true;
          warnings.push({ field: 'messages.system', message: 'system messages after the conversation started are sent as part of the one leading system prompt' });
        }
        for (const part of textParts(m.content)) ir.system.push(part);
        break;
      case 'user': {
        state.conversationStarted = true;
        const parts: UserPart[] = [];
        if (typeof m.content === 'string') parts.push({ type: 'text', text: m.content });
        else {
          for (let j = 0; j < m.content.length; j++) {
            const part = userContentPart(m.content[j]!, `${param}.content[${j}]`, ir, mediaUrls);
            if (part) parts.push(part);
          }
        }
        pushUser(ir, parts);
        break;
      }
      case 'assistant':
        state.conversationStarted = true;
        decodeAssistant(m, i, state);
        break;
      case 'tool':
        pushUser(ir, [
          { type: 'tool-result', callId: m.tool_call_id, content: textParts(m.content) as ToolResultContent[], isError: false, kind: state.callKinds.get(m.tool_call_id) ?? 'function' },
        ]);
        break;
      case 'function': {
        const at = state.legacyCalls.findIndex((c) => c.name === m.name);
        const call = at < 0 ? undefined : state.legacyCalls.splice(at, 1)[0]!;
        const content: ToolResultContent[] = m.content != null && m.content !== '' ? [{ type: 'text', text: m.content }] : [];
        pushUser(ir, [{ type: 'tool-result', callId: call?.id ?? legacyCallId(i), content, isError: false, kind: 'function' }]);
        break;
      }
      default: {
        const never: never = m;
        return never;
      }
    }
  }
}

function textParts(content: string | readonly { text: string }[]): TextPart[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  const out: TextPart[] = [];
  for (const p of content) if (p.text !== '') out.push({ type: 'text', text: p.text });
  return out;
}

/** Consecutive user-side messages (tool results, then the user's own words) are one IR user turn. */
function pushUser(ir: IrRequest, parts: UserPart[]): void {
  const last = ir.turns[ir.turns.length - 1];
  if (last?.role === 'user') last.parts.push(...parts);
  else ir.turns.push({ role: 'user', parts });
}

function legacyCallId(messageIndex: number): string {
  return `call_legacy_${messageIndex}`;
}

function decodeAssistant(m: AssistantMessageBody, index: number, state: DecodeState): void {
  const parts: AssistantPart[] = [];
  // Reasoning first; a unit that preceded a particular call goes back right before it.
  const beforeCall = new Map<string, ReasoningPart[]>();
  const details = m.reasoning_details != null ? decodedDetails(m.reasoning_details as Record<string, unknown>[], state.warnings) : [];
  if (details.length > 0) {
    for (const d of details) {
      if (d.beforeCall === undefined) parts.push(d.part);
      else beforeCall.set(d.beforeCall, [...(beforeCall.get(d.beforeCall) ?? []), d.part]);
    }
  } else {
    const text = m.reasoning_content ?? m.reasoning;
    if (text != null && text !== '') parts.push({ type: 'reasoning', text });
  }

  const content = m.content;
  if (typeof content === 'string') {
    if (content !== '') parts.push({ type: 'text', text: content });
  } else if (content != null) {
    for (const p of content) {
      if (p.type === 'text') {
        if (p.text !== '') parts.push({ type: 'text', text: p.text });
      } else if (p.refusal !== '') parts.push({ type: 'text', text: p.refusal, refusal: true });
    }
  }
  if (m.refusal != null && m.refusal !== '') parts.push({ type: 'text', text: m.refusal, refusal: true });

  for (const call of m.tool_calls ?? []) {
    const placed = beforeCall.get(call.id);
    if (placed) {
      parts.push(...placed);
      beforeCall.delete(call.id);
    }
    if (call.type === 'function') {
      parts.push({ type: 'tool-call', id: call.id, name: call.function.name, arguments: call.function.arguments, kind: 'function' });
      state.callKinds.set(call.id, 'function');
    } else {
      parts.push({ type: 'tool-call', id: call.id, name: call.custom.name, arguments: call.custom.input, kind: 'custom' });
      state.callKinds.set(call.id, 'custom');
    }
  }
  // A unit naming a call this message does not have: kept, at the end of the reasoning it belongs to.
  for (const rest of beforeCall.values()) parts.push(...rest);
  if (m.function_call != null) {
    const id = legacyCallId(index);
    parts.push({ type: 'tool-call', id, name: m.function_call.name, arguments: m.function_call.arguments, kind: 'function' });
    state.legacyCalls.push({ id, name: m.function_call.name });
  }
  // An empty assistant message says nothing (and Anthropic refuses one).
  if (parts.length > 0) state.ir.turns.push({ role: 'assistant', parts });
}

function decodedDetails(entries: readonly Record<string, unknown>[], warnings: Warning[]): DecodedDetail[] {
  const out: DecodedDetail[] = [];
  let dropped = 0;
  for (const entry of entries) {
    const d = decodeReasoningDetail(entry);
    if (d) out.push(d);
    else dropped++;
  }
  if (dropped > 0) warnings.push({ field: 'messages.reasoning_details', message: `${dropped} reasoning_details entries of an unknown format cannot be sent back to any upstream; dropped` });
  return out;
}
