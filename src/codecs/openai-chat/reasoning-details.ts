// Opaque reasoning state through a Chat Completions caller (chat-completions.md §10): OpenRouter's
// `reasoning_details` convention, the one most chat clients already echo back on the assistant
// message. Each IR reasoning part with a carry becomes one entry whose `format` names the family and
// whose native field holds the vendor's bytes unchanged:
//   Anthropic thinking         {type:"reasoning.text", text, signature, format:"anthropic-claude-v1"}
//   Anthropic redacted         {type:"reasoning.encrypted", data, format:"anthropic-claude-v1"}
//   OpenAI reasoning item      {type:"reasoning.encrypted", id:"rs_…", data:<encrypted_content>|"", summary:[…], format:"openai-responses-v1"}
//   Gemini signed thought      {type:"reasoning.text", text, signature, format:"google-gemini-v1"}
//   Gemini signature for the next part  {type:"reasoning.encrypted", data, format:"google-gemini-v1"}
//   Gemini unsigned thought    {type:"reasoning.text", text, format:"google-gemini-v1"}
// A reasoning unit that sits after the message's text or an earlier call names the call it precedes
// (`tool_call_id`), so the decoder puts it back where it was: a Gemini signature belongs on that call.
import type { ReasoningCarry, ReasoningPart } from '../../ir/types.js';

export const ANTHROPIC_FORMAT = 'anthropic-claude-v1';
export const OPENAI_FORMAT = 'openai-responses-v1';
export const GOOGLE_FORMAT = 'google-gemini-v1';

export interface ReasoningDetail {
  type: 'reasoning.text' | 'reasoning.encrypted';
  text?: string;
  signature?: string;
  data?: string;
  id?: string;
  summary?: { type: 'summary_text'; text: string }[];
  format: string;
  index: number;
  /** The tool call this unit came right before, when it was not at the start of the message. */
  tool_call_id?: string;
}

/** The entry for a reasoning part; undefined when it carries nothing opaque (its text alone is
 * `reasoning_content`). `text` is the part's full text (a signature covers it byte for byte). */
export function reasoningDetail(text: string, carry: ReasoningCarry | undefined, index: number, beforeCall?: string): ReasoningDetail | undefined {
  let d: ReasoningDetail;
  switch (carry?.family) {
    case undefined:
    case 'chat':
      return undefined;
    case 'anthropic': {
      const b = carry.block;
      d =
        b.type === 'thinking'
          ? { type: 'reasoning.text', text: text !== '' ? text : b.thinking, signature: b.signature, format: ANTHROPIC_FORMAT, index }
          : { type: 'reasoning.encrypted', data: b.data, format: ANTHROPIC_FORMAT, index };
      break;
    }
    case 'openai':
      d = { type: 'reasoning.encrypted', id: carry.id, data: carry.encryptedContent ?? '', summary: carry.summary, format: OPENAI_FORMAT, index };
      break;
    case 'google':
      if (carry.on === 'next') d = { type: 'reasoning.encrypted', data: carry.signature ?? '', format: GOOGLE_FORMAT, index };
      else {
        d = { type: 'reasoning.text', text, format: GOOGLE_FORMAT, index };
        if (carry.signature !== null) d.signature = carry.signature;
      }
      break;
    default: {
      const never: never = carry;
      return never;
    }
  }
  if (beforeCall !== undefined) d.tool_call_id = beforeCall;
  return d;
}

/** A decoded entry: the IR part, and the call it goes before (undefined: the start of the message). */
export interface DecodedDetail {
  part: ReasoningPart;
  beforeCall?: string;
}

/**
 * An echoed entry → the reasoning part it restores; undefined for an entry that carries nothing the
 * gateway can send back (an unknown format, a bare summary): its text still reaches the upstream
 * through `reasoning_content` when the caller sent that.
 */
export function decodeReasoningDetail(entry: Record<string, unknown>): DecodedDetail | undefined {
  const type = entry.type;
  const format = entry.format;
  const text = str(entry.text) ?? '';
  const beforeCall = str(entry.tool_call_id);
  let carry: ReasoningCarry | undefined;
  if (format === ANTHROPIC_FORMAT) {
    if (type === 'reasoning.text' && str(entry.signature) !== undefined) carry = { family: 'anthropic', block: { type: 'thinking', thinking: text, signature: str(entry.signature)! } };
    else if (type === 'reasoning.encrypted' && str(entry.data) !== undefined) carry = { family: 'anthropic', block: { type: 'redacted_thinking', data: str(entry.data)! } };
  } else if (format === OPENAI_FORMAT) {
    const id = str(entry.id);
    if (type === 'reasoning.encrypted' && id !== undefined) {
      const data = str(entry.data);
      carry = { family: 'openai', id, encryptedContent: data === undefined || data === '' ? null : data, summary: summaries(entry.summary) };
    }
  } else if (format === GOOGLE_FORMAT) {
    if (type === 'reasoning.encrypted' && str(entry.data) !== undefined) carry = { family: 'google', signature: str(entry.data)!, on: 'next' };
    else if (type === 'reasoning.text') carry = { family: 'google', signature: str(entry.signature) ?? null, on: 'thought' };
  }
  if (carry === undefined) return undefined;
  const partText = carry.family === 'openai' ? carry.summary.map((s) => s.text).join('\n\n') : carry.family === 'google' && carry.on === 'next' ? '' : text;
  const part: ReasoningPart = { type: 'reasoning', text: partText, carry };
  return beforeCall === undefined ? { part } : { part, beforeCall };
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function summaries(v: unknown): { type: 'summary_text'; text: string }[] {
  if (!Array.isArray(v)) return [];
  const out: { type: 'summary_text'; text: string }[] = [];
  for (const s of v) {
    if (s && typeof s === 'object' && typeof (s as { text?: unknown }).text === 'string') out.push({ type: 'summary_text', text: (s as { text: string }).text });
  }
  return out;
}
