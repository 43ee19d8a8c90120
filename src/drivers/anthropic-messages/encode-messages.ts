// IR turns → Messages `messages` (mapping.md §2, §7, §8, §15). Anthropic is the strictest upstream
// about history shape, so the conversation is first built as drafts and then normalized: same-role
// turns merged, empty ones dropped, every tool_use answered first thing in the next user message (in
// call order), stray results turned into text, and thinking restored only from Anthropic's own state.
import { wireToolName } from '../../ir/tool-names.js';
import type { IrRequest, Turn, Warning } from '../../ir/types.js';
import type {
  UpstreamDocumentBlock,
  UpstreamImageBlock,
  UpstreamMessage,
  UpstreamRedactedThinkingBlock,
  UpstreamTextBlock,
  UpstreamThinkingBlock,
  UpstreamToolResultBlock,
  UpstreamToolUseBlock,
} from '../../protocols/anthropic-messages/upstream-request.js';
import { fileBlock, imageBlock, isBlank, orphanResultBlocks, textBlock, toolResultBlock } from './encode-content.js';
import { ANTHROPIC_TOOL_NAME_MAX } from './tool-lookup.js';
import { toolInput, upstreamToolId } from './tool-input.js';

/** What the upstream sees for a call the caller never answered (it would reject the history otherwise). */
export const UNANSWERED_CALL_TEXT = 'Tool call was not completed.';

type NativeThinking = UpstreamThinkingBlock | UpstreamRedactedThinkingBlock;
type UserContent = UpstreamTextBlock | UpstreamImageBlock | UpstreamDocumentBlock;

export interface AssistantDraft {
  role: 'assistant';
  /** Restored native reasoning blocks, in order; sent first (a tool loop must start with them). */
  thinking: NativeThinking[];
  body: (UpstreamTextBlock | UpstreamToolUseBlock)[];
  /** Upstream ids of the body's tool_use blocks, in order. */
  calls: string[];
}

export interface UserDraft {
  role: 'user';
  results: UpstreamToolResultBlock[];
  other: UserContent[];
}

type Draft = AssistantDraft | UserDraft;

/** A normalized conversation, still open to the thinking decisions before it is serialized. */
export interface Conversation {
  drafts: Draft[];
}

interface EncodeState {
  readonly sameFamily: boolean;
  readonly warnings: Warning[];
  /** Once-per-request warnings already given. */
  readonly warned: Set<string>;
}

function warnOnce(state: EncodeState, field: string, message: string): void {
  if (state.warned.has(message)) return;
  state.warned.add(message);
  state.warnings.push({ field, message });
}

export function buildConversation(req: IrRequest, warnings: Warning[]): Conversation {
  const state: EncodeState = { sameFamily: req.sourceProtocol === 'messages', warnings, warned: new Set() };
  const drafts: Draft[] = [];
  for (let t = 0; t < req.turns.length; t++) {
    const turn = req.turns[t]!;
    const draft = turn.role === 'user' ? userDraft(turn, t, state) : assistantDraft(turn, state);
    if (draft) drafts.push(draft);
  }
  const merged = compact(mergeSameRole(drafts), state);
  pairToolResults(merged, state);
  trimPrefill(merged);
  return { drafts: merged };
}

function userDraft(turn: Extract<Turn, { role: 'user' }>, t: number, state: EncodeState): UserDraft | undefined {
  const results: UpstreamToolResultBlock[] = [];
  const other: UserContent[] = [];
  for (let j = 0; j < turn.parts.length; j++) {
    const part = turn.parts[j]!;
    const param = `messages.${t}.content.${j}`;
    switch (part.type) {
      case 'text': {
        const block = textBlock(part);
        if (block) other.push(block);
        break;
      }
      case 'image':
        other.push(imageBlock(part, param, state.sameFamily));
        if (part.detail !== undefined && part.detail !== 'auto') warnOnce(state, 'image.detail', `image detail ${part.detail} has no Anthropic equivalent; ignored`);
        break;
      case 'file': {
        const block = fileBlock(part, param, state.sameFamily);
        if (block) other.push(block);
        break;
      }
      case 'tool-result':
        results.push(toolResultBlock(part, upstreamToolId(part.callId), param, state.sameFamily));
        break;
      default: {
        const never: never = part;
        return never;
      }
    }
  }
  return results.length > 0 || other.length > 0 ? { role: 'user', results, other } : undefined;
}

function assistantDraft(turn: Extract<Turn, { role: 'assistant' }>, state: EncodeState): AssistantDraft | undefined {
  const thinking: NativeThinking[] = [];
  const body: AssistantDraft['body'] = [];
  const calls: string[] = [];
  for (const part of turn.parts) {
    switch (part.type) {
      case 'text': {
        const block = textBlock(part);
        if (block) body.push(block);
        break;
      }
      case 'tool-call': {
        const id = upstreamToolId(part.id);
        let input = toolInput(part);
        if (input === undefined) {
          input = {};
          warnOnce(state, 'tool_call.arguments', 'tool-call arguments that are not JSON were sent to the Anthropic upstream as {}');
        }
        const block: UpstreamToolUseBlock = { type: 'tool_use', id, name: wireToolName(part.name, part.namespace, ANTHROPIC_TOOL_NAME_MAX), input };
        if (part.cacheControl != null) block.cache_control = part.cacheControl;
        body.push(block);
        calls.push(id);
        break;
      }
      case 'reasoning': {
        const carry = part.carry;
        if (carry?.family === 'anthropic') {
          // Rebuilt field by field from the carry: exactly the block Anthropic signed, nothing added.
          const b = carry.block;
          thinking.push(b.type === 'thinking' ? { type: 'thinking', thinking: b.thinking, signature: b.signature } : { type: 'redacted_thinking', data: b.data });
        } else if (carry !== undefined || part.text !== '') {
          warnOnce(state, 'reasoning', `reasoning from ${carry ? `the ${carry.family} family` : 'the caller'} cannot be replayed to an Anthropic upstream; dropped`);
        }
        break;
      }
      default: {
        const never: never = part;
        return never;
      }
    }
  }
  return thinking.length > 0 || body.length > 0 ? { role: 'assistant', thinking, body, calls } : undefined;
}

function mergeInto(into: Draft, from: Draft): void {
  if (into.role === 'assistant' && from.role === 'assistant') {
    for (const b of from.thinking) into.thinking.push(b);
    for (const b of from.body) into.body.push(b);
    for (const id of from.calls) into.calls.push(id);
  } else if (into.role === 'user' && from.role === 'user') {
    for (const b of from.results) into.results.push(b);
    for (const b of from.other) into.other.push(b);
  }
}

/** Consecutive same-role turns become one message (older and third-party endpoints reject them). */
function mergeSameRole(drafts: Draft[]): Draft[] {
  const out: Draft[] = [];
  for (const d of drafts) {
    const last = out[out.length - 1];
    if (last !== undefined && last.role === d.role) mergeInto(last, d);
    else out.push(d);
  }
  return out;
}

/** An assistant message of reasoning only would end with thinking, which Anthropic rejects: it goes,
 * and the user messages around it become one. */
function compact(drafts: Draft[], state: EncodeState): Draft[] {
  let dropped = false;
  for (const d of drafts) {
    if (d.role === 'assistant' && d.body.length === 0) dropped = true;
  }
  if (!dropped) return drafts;
  warnOnce(state, 'reasoning', 'an assistant turn with reasoning only cannot be replayed to an Anthropic upstream; dropped');
  return mergeSameRole(drafts.filter((d) => d.role !== 'assistant' || d.body.length > 0));
}

function unanswered(id: string): UpstreamToolResultBlock {
  return { type: 'tool_result', tool_use_id: id, content: UNANSWERED_CALL_TEXT, is_error: true };
}

/** Each user message after tool calls starts with one result per call, in call order; calls without a
 * result get an error result, results without a call become text. */
function pairToolResults(drafts: Draft[], state: EncodeState): void {
  const none: string[] = [];
  for (let i = 0; i < drafts.length; i++) {
    const d = drafts[i]!;
    if (d.role !== 'user') continue;
    const prev = drafts[i - 1];
    const calls = prev !== undefined && prev.role === 'assistant' ? prev.calls : none;
    if (calls.length === 0 && d.results.length === 0) continue;
    let byId: Map<string, UpstreamToolResultBlock> | undefined;
    let orphans: UpstreamToolResultBlock[] | undefined;
    for (const r of d.results) {
      if (calls.includes(r.tool_use_id) && !byId?.has(r.tool_use_id)) (byId ??= new Map()).set(r.tool_use_id, r);
      else (orphans ??= []).push(r);
    }
    const results: UpstreamToolResultBlock[] = [];
    for (const id of calls) {
      const r = byId?.get(id);
      if (r) results.push(r);
      else {
        results.push(unanswered(id));
        warnOnce(state, 'tool_call', 'a tool call without a result was answered with an error result');
      }
    }
    d.results = results;
    if (orphans) {
      warnOnce(state, 'tool_result', 'a tool result without a matching tool call was sent as user text');
      const other: UserContent[] = [];
      for (const r of orphans) for (const b of orphanResultBlocks(r)) other.push(b);
      for (const b of d.other) other.push(b);
      d.other = other;
    }
  }
  const last = drafts[drafts.length - 1];
  if (last !== undefined && last.role === 'assistant' && last.calls.length > 0) {
    drafts.push({ role: 'user', results: last.calls.map(unanswered), other: [] });
    warnOnce(state, 'tool_call', 'a tool call without a result was answered with an error result');
  }
}

/** A final assistant message (prefill) must not end with whitespace (messages.md §4, mapping.md §15.2). */
function trimPrefill(drafts: Draft[]): void {
  const last = drafts[drafts.length - 1];
  if (last === undefined || last.role !== 'assistant') return;
  const body = last.body;
  const block = body[body.length - 1];
  if (block === undefined || block.type !== 'text') return;
  const text = block.text.trimEnd();
  if (text === block.text) return;
  if (!isBlank(text)) {
    body[body.length - 1] = { ...block, text };
    return;
  }
  body.pop();
  if (body.length === 0) drafts.pop();
}

/** The assistant message of an open tool loop: the last message holds tool results for its calls. */
export function toolLoopAssistant(conv: Conversation): AssistantDraft | undefined {
  const d = conv.drafts;
  const last = d[d.length - 1];
  if (last === undefined || last.role !== 'user' || last.results.length === 0) return undefined;
  const prev = d[d.length - 2];
  return prev !== undefined && prev.role === 'assistant' ? prev : undefined;
}

/** With thinking off, Anthropic rejects thinking blocks in the final assistant message. */
export function stripFinalThinking(conv: Conversation, warnings: Warning[]): void {
  const d = conv.drafts;
  for (let i = d.length - 1; i >= 0; i--) {
    const draft = d[i]!;
    if (draft.role !== 'assistant') continue;
    if (draft.thinking.length > 0) {
      draft.thinking = [];
      warnings.push({ field: 'reasoning', message: 'thinking blocks of the last assistant message were dropped because thinking is off for this request' });
    }
    return;
  }
}

export function toMessages(conv: Conversation): UpstreamMessage[] {
  const out: UpstreamMessage[] = [];
  for (const d of conv.drafts) {
    if (d.role === 'assistant') {
      out.push({ role: 'assistant', content: d.thinking.length === 0 ? d.body : [...d.thinking, ...d.body] });
    } else {
      out.push({ role: 'user', content: d.results.length === 0 ? d.other : d.other.length === 0 ? d.results : [...d.results, ...d.other] });
    }
  }
  return out;
}
