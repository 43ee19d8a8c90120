// Gemini `contents` and `systemInstruction` → IR system and turns (gemini.md §2, §6, §7, §13).
// A model turn's parts become text, tool calls and reasoning; a `thoughtSignature` on any part is the
// opaque reasoning state of what came before it: the gateway's own envelope (another family's state
// it handed out, ir/reasoning-envelope.ts) restores that carry byte-exact, anything else is Google's
// own signature. A `functionResponse` is paired with a call of the model turn before it (by id, else
// by name in order); one with no such call, and a call the next user content leaves unanswered, are
// refused, as Google refuses them.
import { invalidRequest } from '../../errors.js';
import { mediaUrlRefusal, type MediaUrlRule } from '../../ir/media-url.js';
import { decodeEnvelope, isEnvelope } from '../../ir/reasoning-envelope.js';
import type { AssistantPart, ReasoningCarry, ReasoningPart, TextPart, ToolResultContent, Turn, UserPart, Warning } from '../../ir/types.js';
import type { CallerContentBody, CallerPartBody } from '../../protocols/gemini/caller-request.js';
import { GatewayError } from '../../errors.js';
import { isBase64 } from '../base64-check.js';
import { fieldError } from './request-validation.js';

/** The part fields that carry data; a part has exactly one. */
const DATA_FIELDS = ['text', 'inlineData', 'fileData', 'functionCall', 'functionResponse'] as const;
/** Part kinds Google defines that the gateway does not carry (refused by name, not as "unknown"). */
const UNSUPPORTED_PARTS = ['executableCode', 'codeExecutionResult', 'videoMetadata', 'toolCall', 'toolResponse'];

interface CallSeen {
  id: string;
  name: string;
  answered: boolean;
  /** Where the call is (`contents[1].parts[0]`), to name it when no response follows. */
  at: string;
}

export function decodeSystem(system: { parts: CallerPartBody[] } | undefined): TextPart[] {
  if (!system) return [];
  const out: TextPart[] = [];
  system.parts.forEach((part, j) => {
    const where = `systemInstruction.parts[${j}]`;
    if (part.text === undefined) throw fieldError(where, 'a system instruction holds text parts only');
    if (part.text !== '') out.push({ type: 'text', text: part.text });
  });
  return out;
}

export function decodeContents(contents: CallerContentBody[], warnings: Warning[], mediaUrls: MediaUrlRule): Turn[] {
  if (contents.length === 0) throw invalidRequest('contents: must not be empty', 'contents');
  const turns: Turn[] = [];
  /** The calls of the last model turn, awaiting their functionResponse parts. */
  let calls: CallSeen[] = [];
  let callCount = 0;
  for (let i = 0; i < contents.length; i++) {
    const content = contents[i]!;
    const where = `contents[${i}]`;
    if (content.parts.length === 0) throw invalidRequest(`${where}.parts: must not be empty`, `${where}.parts`);
    if (content.role === 'model') {
      const parts: AssistantPart[] = [];
      calls = [];
      for (let j = 0; j < content.parts.length; j++) {
        const part = content.parts[j]!;
        const at = `${where}.parts[${j}]`;
        checkOneDataField(part, at);
        if (part.functionCall) {
          signatureBefore(part, parts, warnings, at);
          const id = part.functionCall.id !== undefined && part.functionCall.id !== '' ? part.functionCall.id : `gcall_${i}_${callCount++}`;
          calls.push({ id, name: part.functionCall.name, answered: false, at });
          parts.push({ type: 'tool-call', id, name: part.functionCall.name, arguments: JSON.stringify(part.functionCall.args ?? {}), kind: 'function' });
        } else if (part.text !== undefined && part.thought === true) {
          parts.push(thoughtPart(part.text, part.thoughtSignature, warnings, at));
        } else if (part.text !== undefined) {
          signatureBefore(part, parts, warnings, at);
          if (part.text !== '') parts.push({ type: 'text', text: part.text });
        } else {
          throw fieldError(at, 'a model turn carries text, functionCall and thought parts only');
        }
      }
      if (parts.length > 0) pushTurn(turns, { role: 'assistant', parts });
      continue;
    }
    const parts: UserPart[] = [];
    for (let j = 0; j < content.parts.length; j++) {
      const part = content.parts[j]!;
      const at = `${where}.parts[${j}]`;
      checkOneDataField(part, at);
      if (part.functionResponse) {
        parts.push(toolResult(part.functionResponse, calls, at));
      } else if (part.functionCall) {
        throw fieldError(at, 'a functionCall belongs in a model turn');
      } else if (part.text !== undefined) {
        // A thought in a user turn is not reasoning anyone can replay: the text is what it says.
        if (part.text !== '') parts.push({ type: 'text', text: part.text });
      } else {
        const media = mediaPart(part, at, mediaUrls);
        parts.push(media);
      }
    }
    // Google's rule: the user content after a model turn's calls answers every one of them.
    const open = calls.find((c) => !c.answered);
    if (open !== undefined) {
      throw new GatewayError('invalid_request', `${open.at}.functionCall: "${open.name.slice(0, 64)}" has no functionResponse in the user content after it; every call needs one`, {
        param: `${open.at}.functionCall`,
      });
    }
    calls = [];
    if (parts.length > 0) pushTurn(turns, { role: 'user', parts });
  }
  return turns;
}

/** Adjacent contents of one role become one turn (Gemini merges them too). */
function pushTurn(turns: Turn[], turn: Turn): void {
  const last = turns[turns.length - 1];
  if (last && last.role === turn.role) {
    (last.parts as (UserPart | AssistantPart)[]).push(...turn.parts);
    return;
  }
  turns.push(turn);
}

function checkOneDataField(part: CallerPartBody, at: string): void {
  let found = 0;
  for (const f of DATA_FIELDS) if (part[f] !== undefined) found++;
  if (found === 1) return;
  if (found > 1) throw fieldError(at, `a part holds exactly one of ${DATA_FIELDS.join(', ')}`);
  const other = Object.keys(part).find((k) => UNSUPPORTED_PARTS.includes(k));
  if (other !== undefined) throw fieldError(at, `${other} parts are not supported by this gateway`);
  const unknown = Object.keys(part).find((k) => k !== 'thought' && k !== 'thoughtSignature');
  throw fieldError(at, unknown !== undefined ? `unknown part kind "${unknown.slice(0, 64)}"` : `a part needs one of ${DATA_FIELDS.join(', ')}`);
}

/** A signed answer part: the reasoning state its signature carries goes before it. */
function signatureBefore(part: CallerPartBody, parts: AssistantPart[], warnings: Warning[], at: string): void {
  const sig = part.thoughtSignature;
  if (sig === undefined || sig === '') return;
  parts.push(reasoningOf(sig, '', 'next', warnings, at));
}

function thoughtPart(text: string, sig: string | undefined, warnings: Warning[], at: string): ReasoningPart {
  if (sig === undefined || sig === '') return { type: 'reasoning', text };
  return reasoningOf(sig, text, 'thought', warnings, at);
}

function reasoningOf(sig: string, text: string, on: 'thought' | 'next', warnings: Warning[], at: string): ReasoningPart {
  if (isEnvelope(sig)) {
    const carry = decodeEnvelope(sig);
    if (carry) return { type: 'reasoning', text: text !== '' ? text : carryText(carry), carry };
    warnings.push({ field: 'thoughtSignature', message: `${at}.thoughtSignature is a damaged gateway signature; its reasoning state was dropped` });
    return { type: 'reasoning', text };
  }
  return { type: 'reasoning', text, carry: { family: 'google', signature: sig, on } };
}

function carryText(carry: ReasoningCarry): string {
  switch (carry.family) {
    case 'anthropic':
      return carry.block.type === 'thinking' ? carry.block.thinking : '';
    case 'openai':
      return carry.summary.map((s) => s.text).join('\n\n');
    case 'chat':
      return carry.text;
    case 'google':
      return '';
    default: {
      const never: never = carry;
      return never;
    }
  }
}

function toolResult(fr: NonNullable<CallerPartBody['functionResponse']>, calls: CallSeen[], at: string): UserPart {
  const byId = fr.id !== undefined && fr.id !== '' ? calls.find((c) => !c.answered && c.id === fr.id) : undefined;
  const call = byId ?? calls.find((c) => !c.answered && c.name === fr.name);
  if (!call) {
    throw new GatewayError('invalid_request', `${at}.functionResponse: no functionCall named "${fr.name.slice(0, 64)}" in the model turn before it awaits a response`, {
      param: `${at}.functionResponse`,
    });
  }
  call.answered = true;
  const response = fr.response ?? {};
  const isError = response.error !== undefined && response.output === undefined;
  const value = isError ? response.error : response.output !== undefined && Object.keys(response).length === 1 ? response.output : response;
  const content: ToolResultContent[] = [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value) }];
  return { type: 'tool-result', callId: call.id, content, isError, kind: 'function' };
}

function mediaPart(part: CallerPartBody, at: string, mediaUrls: MediaUrlRule): UserPart {
  if (part.inlineData) {
    const { mimeType, data } = part.inlineData;
    if (!isBase64(data)) throw fieldError(`${at}.inlineData.data`, 'not valid base64');
    const source = { kind: 'base64' as const, mediaType: mimeType, data };
    return mimeType.startsWith('image/') ? { type: 'image', source } : { type: 'file', source };
  }
  const file = part.fileData!;
  const refused = mediaUrlRefusal(file.fileUri, mediaUrls);
  if (refused !== undefined) {
    throw new GatewayError('invalid_request', `${at}.fileData.fileUri: ${refused}`, { param: `${at}.fileData.fileUri`, code: 'invalid_value' });
  }
  const source = { kind: 'url' as const, url: file.fileUri };
  return file.mimeType?.startsWith('image/') ? { type: 'image', source } : { type: 'file', source };
}
