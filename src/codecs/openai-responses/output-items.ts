// Output items as JSON text (responses.md §5), shared by the result and stream encoders so both modes
// render an item identically. Item ids derive from the response id and the output index
// (`msg_<resp>_<n>`), so the stream can name an item before its content (or its carry) exists.
import { encodeEnvelope } from '../../ir/reasoning-envelope.js';
import type { ReasoningCarry } from '../../ir/types.js';

export type ItemStatus = 'in_progress' | 'completed' | 'incomplete';

export type ItemPrefix = 'msg' | 'rs' | 'fc' | 'ctc';

/** `resp_abc` → `abc`: the part of the response id every item id of that response repeats. */
export function idStem(responseId: string): string {
  return responseId.startsWith('resp_') ? responseId.slice(5) : responseId;
}

export function itemId(prefix: ItemPrefix, stem: string, outputIndex: number): string {
  return prefix + '_' + stem + '_' + outputIndex;
}

// --- message ----------------------------------------------------------------------------------

export function outputTextPartJson(textJson: string): string {
  return '{"type":"output_text","annotations":[],"logprobs":[],"text":' + textJson + '}';
}

export function refusalPartJson(refusalJson: string): string {
  return '{"type":"refusal","refusal":' + refusalJson + '}';
}

export const EMPTY_OUTPUT_TEXT_PART = outputTextPartJson('""');
export const EMPTY_REFUSAL_PART = refusalPartJson('""');

/** A message item; `contentJson` is the inside of the content array (empty when just added). */
export function messageItemJson(idJson: string, status: ItemStatus, contentJson: string): string {
  return '{"id":' + idJson + ',"type":"message","status":"' + status + '","content":[' + contentJson + '],"role":"assistant"}';
}

// --- tool calls -------------------------------------------------------------------------------

export function functionCallItemJson(
  idJson: string,
  status: ItemStatus,
  argumentsJson: string,
  callIdJson: string,
  nameJson: string,
  namespaceJson: string | undefined,
): string {
  return (
    '{"id":' + idJson + ',"type":"function_call","status":"' + status + '","arguments":' + argumentsJson +
    ',"call_id":' + callIdJson + ',"name":' + nameJson + (namespaceJson === undefined ? '}' : ',"namespace":' + namespaceJson + '}')
  );
}

export function customCallItemJson(
  idJson: string,
  status: ItemStatus,
  callIdJson: string,
  nameJson: string,
  inputJson: string,
  namespaceJson: string | undefined,
): string {
  return (
    '{"id":' + idJson + ',"type":"custom_tool_call","status":"' + status + '","call_id":' + callIdJson + ',"name":' + nameJson +
    ',"input":' + inputJson + (namespaceJson === undefined ? '}' : ',"namespace":' + namespaceJson + '}')
  );
}

/** Function arguments are JSON text: an empty argument string means an empty object (mapping.md §15.10). */
export function functionArguments(args: string): string {
  return args === '' ? '{}' : args;
}

// --- reasoning --------------------------------------------------------------------------------

export const ADDED_REASONING_TAIL = ',"type":"reasoning","summary":[]}';

/** A reasoning item. Status only when it was cut short: OpenAI's items carry none otherwise. */
export function reasoningItemJson(idJson: string, summaryJson: string, encryptedJson: string, incomplete: boolean): string {
  return (
    '{"id":' + idJson + ',"type":"reasoning","summary":' + summaryJson + ',"encrypted_content":' + encryptedJson +
    (incomplete ? ',"status":"incomplete"}' : '}')
  );
}

/**
 * The summary a Responses caller sees: nothing unless it asked for summaries; an OpenAI carry's own
 * parts (the upstream's part boundaries, which the stream mirrored with summary_index); else the
 * text as one part.
 */
export function summaryJson(asked: boolean, text: string, carry: ReasoningCarry | undefined): string {
  if (!asked) return '[]';
  if (carry?.family === 'openai' && carry.summary.length > 0) {
    let out = '[';
    for (let i = 0; i < carry.summary.length; i++) {
      out += (i === 0 ? '' : ',') + '{"type":"summary_text","text":' + JSON.stringify(carry.summary[i]!.text) + '}';
    }
    return out + ']';
  }
  return text === '' ? '[]' : '[{"type":"summary_text","text":' + JSON.stringify(text) + '}]';
}

/**
 * What the caller echoes back as `encrypted_content`: OpenAI's own blob when the item id we gave is
 * the upstream's (so the pair stays valid for OpenAI); otherwise our envelope around the carry — or
 * around the text itself when there is no carry — so the next turn can restore it for its family.
 */
export function encryptedContentJson(id: string, text: string, carry: ReasoningCarry | undefined): string {
  if (carry?.family === 'openai' && carry.encryptedContent !== null && carry.id === id) return JSON.stringify(carry.encryptedContent);
  return '"' + encodeEnvelope(carry ?? { family: 'chat', text }) + '"';
}
