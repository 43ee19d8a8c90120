// IR system + turns → Gemini `systemInstruction` and `contents` (gemini.md §2, §6, §7; mapping.md §16.2).
// Roles are `user` and `model`; a tool result is a `functionResponse` part naming its function, so the
// names of earlier calls are remembered by id. Every call of a model turn is answered in the next user
// turn (Gemini rejects a history with unanswered calls). Thought parts and signatures go back exactly as
// they came (§6): the signature of an answer part rides on the reasoning part before it.
import { invalidRequest } from '../../errors.js';
import { HTTPS_ONLY, mediaUrlRefusal, type MediaUrlRule } from '../../ir/media-url.js';
import { parseToolArguments } from '../../ir/tool-arguments.js';
import { wireToolName } from '../../ir/tool-names.js';
import type { FilePart, ImagePart, IrRequest, ReasoningPart, ToolResultPart, Turn, UserPart, Warning } from '../../ir/types.js';
import type { GeminiContent, GeminiPart } from '../../protocols/gemini/request.js';
import { upstreamCallId } from './call-ids.js';
import { GEMINI_TOOL_NAME_MAX } from './tool-names.js';

/** What the upstream sees for a call the caller never answered. */
export const UNANSWERED_CALL_TEXT = 'Tool call was not completed.';

/** Google's documented stand-in signature for a function call Gemini did not make (gemini.md §6). */
export const SKIP_SIGNATURE = 'skip_thought_signature_validator';

type UserTurn = Extract<Turn, { role: 'user' }>;
type AssistantTurn = Extract<Turn, { role: 'assistant' }>;

interface PendingCall {
  callerId: string;
  name: string;
}

interface EncodeState {
  readonly contents: GeminiContent[];
  readonly warnings: Warning[];
  /** Every call seen so far: caller id → wire function name (a result names its function). */
  readonly names: Map<string, string>;
  /** The last model turn's calls, not yet answered. */
  pending: PendingCall[];
  /** Gemini 3 refuses a step whose first call has no signature: unsigned steps get SKIP_SIGNATURE. */
  readonly signSteps: boolean;
  /** The provider's media-URL rule: `fileData.fileUri` is fetched by Google with the gateway's identity. */
  readonly mediaUrls: MediaUrlRule;
  warnedReasoning: boolean;
  warnedOrphan: boolean;
  warnedUnsigned: boolean;
}

export function encodeSystem(req: IrRequest): { parts: { text: string }[] } | undefined {
  const parts: { text: string }[] = [];
  for (const part of req.system) if (part.text.length > 0) parts.push({ text: part.text });
  return parts.length > 0 ? { parts } : undefined;
}

/** `signSteps`: the model checks signatures (Gemini 3 and later). `mediaUrls`: the target's rule. */
export function encodeContents(req: IrRequest, warnings: Warning[], signSteps = false, mediaUrls: MediaUrlRule = HTTPS_ONLY): GeminiContent[] {
  const state: EncodeState = {
    contents: [],
    warnings,
    names: new Map(),
    pending: [],
    signSteps,
    mediaUrls,
    warnedReasoning: false,
    warnedOrphan: false,
    warnedUnsigned: false,
  };
  for (let t = 0; t < req.turns.length; t++) {
    const turn = req.turns[t]!;
    if (turn.role === 'assistant') {
      if (state.pending.length > 0) push(state, 'user', answerPending(state, undefined));
      encodeModel(turn, state);
    } else {
      encodeUser(turn, t, state);
    }
  }
  if (state.pending.length > 0) push(state, 'user', answerPending(state, undefined));
  return state.contents;
}

/** Adjacent contents of one role are merged: Gemini wants the roles to alternate. */
function push(state: EncodeState, role: 'user' | 'model', parts: GeminiPart[]): void {
  if (parts.length === 0) return;
  const last = state.contents[state.contents.length - 1];
  if (last && last.role === role) {
    for (const p of parts) last.parts.push(p);
    return;
  }
  state.contents.push({ role, parts });
}

function encodeModel(turn: AssistantTurn, state: EncodeState): void {
  const parts: GeminiPart[] = [];
  const calls: PendingCall[] = [];
  // A signature waiting for the answer part it belongs to (§6).
  let signature: string | undefined;
  for (const part of turn.parts) {
    switch (part.type) {
      case 'reasoning':
        signature = encodeReasoning(part, parts, state) ?? signature;
        break;
      case 'text': {
        if (part.text.length === 0 && signature === undefined) break;
        const p: GeminiPart = { text: part.text };
        if (signature !== undefined) p.thoughtSignature = signature;
        signature = undefined;
        parts.push(p);
        break;
      }
      case 'tool-call': {
        const name = wireToolName(part.name, part.namespace, GEMINI_TOOL_NAME_MAX);
        // Custom tools travel as functions taking {"input": string} (mapping.md §4); Gemini wants an object.
        const args = part.kind === 'custom' ? { input: part.arguments } : (parseToolArguments(part.arguments) ?? {});
        const id = upstreamCallId(part.id);
        const p: GeminiPart = { functionCall: id === undefined ? { name, args } : { id, name, args } };
        if (signature !== undefined) p.thoughtSignature = signature;
        else if (calls.length === 0 && state.signSteps) p.thoughtSignature = unsignedStep(state);
        signature = undefined;
        parts.push(p);
        state.names.set(part.id, name);
        calls.push({ callerId: part.id, name });
        break;
      }
      default: {
        const never: never = part;
        return never;
      }
    }
  }
  // The signature of an answer that ended on it (a streamed text's closing empty part).
  if (signature !== undefined) parts.push({ text: '', thoughtSignature: signature });
  push(state, 'model', parts);
  state.pending = calls;
}

/** A step whose first call Gemini did not sign (another model's history, or a caller that dropped the
 * reasoning block): Google's documented stand-in, said once per request. */
function unsignedStep(state: EncodeState): string {
  if (!state.warnedUnsigned) {
    state.warnedUnsigned = true;
    state.warnings.push({ field: 'reasoning', message: `function calls without a Gemini thought signature were sent with "${SKIP_SIGNATURE}" (Gemini's reasoning state for them is lost)` });
  }
  return SKIP_SIGNATURE;
}

/** Pushes the thought part (if any); returns the signature that belongs to the next answer part. */
function encodeReasoning(part: ReasoningPart, parts: GeminiPart[], state: EncodeState): string | undefined {
  const carry = part.carry;
  if (carry?.family !== 'google') {
    // Another family's opaque state means nothing to Gemini, and unsigned thought text from elsewhere
    // is not Gemini's own reasoning: dropped (mapping.md §15.25).
    if (!state.warnedReasoning) {
      state.warnedReasoning = true;
      state.warnings.push({ field: 'reasoning', message: 'reasoning from another model family cannot be replayed to a Gemini upstream; dropped' });
    }
    return undefined;
  }
  if (carry.on === 'thought') {
    const p: GeminiPart = { text: part.text, thought: true };
    if (carry.signature !== null) p.thoughtSignature = carry.signature;
    parts.push(p);
    return undefined;
  }
  if (part.text.length > 0) parts.push({ text: part.text, thought: true });
  return carry.signature ?? undefined;
}

/** functionResponse parts for the pending calls: the given results by id, the missing ones as "not completed". */
function answerPending(state: EncodeState, results: Map<string, GeminiPart> | undefined): GeminiPart[] {
  const parts: GeminiPart[] = [];
  for (const call of state.pending) {
    const given = results?.get(call.callerId);
    if (given) {
      parts.push(given);
      results!.delete(call.callerId);
    } else {
      parts.push({ functionResponse: responseOf(call.callerId, call.name, { error: UNANSWERED_CALL_TEXT }) });
    }
  }
  state.pending = [];
  return parts;
}

function responseOf(callerId: string, name: string, response: Record<string, unknown>): GeminiPart['functionResponse'] & object {
  const id = upstreamCallId(callerId);
  return id === undefined ? { name, response } : { id, name, response };
}

function encodeUser(turn: UserTurn, t: number, state: EncodeState): void {
  let results: Map<string, GeminiPart> | undefined;
  const media: GeminiPart[] = [];
  const own: GeminiPart[] = [];
  const orphans: GeminiPart[] = [];
  for (let j = 0; j < turn.parts.length; j++) {
    const part = turn.parts[j]!;
    const param = `messages.${t}.content.${j}`;
    if (part.type !== 'tool-result') {
      const converted = userPart(part, param, state.mediaUrls);
      if (converted) own.push(converted);
      continue;
    }
    const text = resultText(part, media, param, state.mediaUrls);
    const name = state.names.get(part.callId);
    const answersPending = state.pending.some((c) => c.callerId === part.callId) && !results?.has(part.callId);
    if (name !== undefined && answersPending) {
      (results ??= new Map()).set(part.callId, { functionResponse: responseOf(part.callId, name, part.isError ? { error: text } : { output: text }) });
    } else {
      // No call to attach it to: Gemini would reject a functionResponse, so the model reads it as text.
      orphans.push({ text: `Result of tool call ${part.callId}:\n${text}` });
      if (!state.warnedOrphan) {
        state.warnedOrphan = true;
        state.warnings.push({ field: 'tool_result', message: 'a tool result without a matching tool call was sent as user text' });
      }
    }
  }
  const parts = state.pending.length > 0 ? answerPending(state, results) : [];
  for (const p of media) parts.push(p);
  for (const p of orphans) parts.push(p);
  for (const p of own) parts.push(p);
  push(state, 'user', parts);
}

/** A result's text; its images and documents go to `media` (parts of the same user turn). */
function resultText(part: ToolResultPart, media: GeminiPart[], param: string, mediaUrls: MediaUrlRule): string {
  let text = '';
  for (let k = 0; k < part.content.length; k++) {
    const item = part.content[k]!;
    const converted = userPart(item, `${param}.content.${k}`, mediaUrls);
    if (!converted) continue;
    if (converted.text !== undefined) text += (text ? '\n' : '') + converted.text;
    else media.push(converted);
  }
  return text;
}

function userPart(part: Exclude<UserPart, ToolResultPart>, param: string, mediaUrls: MediaUrlRule): GeminiPart | undefined {
  switch (part.type) {
    case 'text':
      return part.text.length > 0 ? { text: part.text } : undefined;
    case 'image':
      return mediaPart(part, param, mediaUrls);
    case 'file':
      return mediaPart(part, param, mediaUrls);
    default: {
      const never: never = part;
      return never;
    }
  }
}

function mediaPart(part: ImagePart | FilePart, param: string, mediaUrls: MediaUrlRule): GeminiPart | undefined {
  const source = part.source;
  switch (source.kind) {
    case 'base64':
      return { inlineData: { mimeType: source.mediaType, data: source.data } };
    case 'url': {
      // Last line before Google: on Vertex a gs:// URI is read with the gateway's own identity.
      const refused = mediaUrlRefusal(source.url, mediaUrls);
      if (refused !== undefined) throw invalidRequest(`fileData.fileUri: ${refused}`, param);
      const mimeType = mimeFromUrl(source.url) ?? (part.type === 'file' ? 'application/pdf' : undefined);
      return { fileData: mimeType === undefined ? { fileUri: source.url } : { mimeType, fileUri: source.url } };
    }
    case 'text': {
      const title = (part as FilePart).title;
      const text = title ? `${title}\n\n${source.data}` : source.data;
      return text.length > 0 ? { text } : undefined;
    }
    case 'file-id':
      throw invalidRequest('file ids are provider-scoped and cannot be sent to a Gemini upstream; send the content as base64', param);
    default: {
      const never: never = source;
      return never;
    }
  }
}

const MIME_BY_EXTENSION: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  heic: 'image/heic',
  heif: 'image/heif',
  pdf: 'application/pdf',
};

/** `fileData` wants a MIME type; a URL's extension is the only hint we have. */
function mimeFromUrl(url: string): string | undefined {
  const path = url.split(/[?#]/, 1)[0]!;
  const dot = path.lastIndexOf('.');
  return dot < 0 ? undefined : MIME_BY_EXTENSION[path.slice(dot + 1).toLowerCase()];
}
