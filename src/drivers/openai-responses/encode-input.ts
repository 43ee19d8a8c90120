// IR turns → Responses input items (mapping.md §2, §3, §7, §8). A user turn becomes its tool outputs
// (in result order) and then one user message; an assistant turn becomes reasoning, message and call
// items in part order. Calls left without an output get a synthesized one, because the API rejects a
// call that is never answered.
import { fromCallerId } from '../../ir/tool-ids.js';
import type { AssistantPart, Protocol, ToolCallPart, ToolKind, ToolResultPart, Turn, UserPart, Warning } from '../../ir/types.js';
import type {
  AssistantMessageParam,
  InputContentParam,
  InputItemParam,
} from '../../protocols/openai-responses/upstream-request.js';
import { inputContent } from './encode-content.js';
import { wireName } from './tool-names.js';

const NOT_COMPLETED = 'Tool call was not completed.';

class InputBuilder {
  readonly items: InputItemParam[] = [];
  /** Kind of every call sent so far, by caller id; a result answers a call only if the call was sent. */
  private readonly calls = new Map<string, ToolKind>();
  /** Calls of the latest assistant turn still waiting for their output. */
  private pending: ToolCallPart[] = [];

  constructor(
    private readonly source: Protocol,
    private readonly warnings: Warning[],
  ) {}

  user(parts: readonly UserPart[]): void {
    const answered = new Set<string>();
    const content: InputContentParam[] = [];
    for (const part of parts) {
      if (part.type === 'tool-result') {
        if (this.calls.has(part.callId)) {
          this.output(part);
          answered.add(part.callId);
        } else {
          // An output for a call the upstream never saw is a 400 there; keep its text for the model.
          this.warn('tool_result', 'a tool result without its tool call was sent as user content');
          content.push({ type: 'input_text', text: `Result of tool call ${part.callId}:\n${resultText(part)}` });
          for (const c of part.content) {
            if (c.type === 'text' || (c.type === 'file' && c.source.kind === 'text')) continue;
            const media = inputContent(c, this.source);
            if (media !== undefined) content.push(media);
          }
        }
        continue;
      }
      const c = inputContent(part, this.source);
      if (c !== undefined) content.push(c);
    }
    this.closeOrphans(answered);
    if (content.length > 0) this.items.push({ type: 'message', role: 'user', content });
  }

  assistant(parts: readonly AssistantPart[]): void {
    this.closeOrphans(undefined);
    // Consecutive text parts share one message item (one content part each).
    let message: AssistantMessageParam | undefined;
    for (const part of parts) {
      switch (part.type) {
        case 'text': {
          if (part.text === '') break;
          const c = part.refusal ? { type: 'refusal' as const, refusal: part.text } : { type: 'output_text' as const, text: part.text, annotations: [] as [] };
          if (message) message.content.push(c);
          else {
            message = { type: 'message', role: 'assistant', content: [c] };
            this.items.push(message);
          }
          break;
        }
        case 'reasoning': {
          message = undefined;
          const carry = part.carry;
          if (carry === undefined) {
            this.warn('reasoning', 'reasoning without its opaque state cannot be replayed; dropped');
          } else if (carry.family !== 'openai') {
            this.warn('reasoning', 'reasoning from another model family cannot be replayed to an OpenAI Responses upstream; dropped');
          } else if (carry.encryptedContent === null) {
            this.warn('reasoning', 'a reasoning item without encrypted_content cannot be replayed statelessly; dropped');
          } else {
            this.items.push({ type: 'reasoning', id: carry.id, summary: carry.summary, encrypted_content: carry.encryptedContent });
          }
          break;
        }
        case 'tool-call':
          message = undefined;
          this.call(part);
          break;
        default: {
          const never: never = part;
          return never;
        }
      }
    }
  }

  /** End of input: a trailing assistant turn's calls still need outputs. */
  finish(): void {
    this.closeOrphans(undefined);
  }

  private call(part: ToolCallPart): void {
    const callId = fromCallerId(part.id);
    const name = wireName(part.name);
    if (part.kind === 'custom') {
      this.items.push(
        part.namespace === undefined
          ? { type: 'custom_tool_call', call_id: callId, name, input: part.arguments }
          : { type: 'custom_tool_call', call_id: callId, name, input: part.arguments, namespace: part.namespace },
      );
    } else {
      // The API wants JSON text; an empty string (no argument deltas) means no arguments.
      const args = part.arguments === '' ? '{}' : part.arguments;
      this.items.push(
        part.namespace === undefined
          ? { type: 'function_call', call_id: callId, name, arguments: args }
          : { type: 'function_call', call_id: callId, name, arguments: args, namespace: part.namespace },
      );
    }
    this.calls.set(part.id, part.kind);
    this.pending.push(part);
  }

  private output(part: ToolResultPart): void {
    const callId = fromCallerId(part.callId);
    const output = resultOutput(part, this.source);
    // The call's own kind decides the item type: a caller may not know a tool was custom.
    const kind = this.calls.get(part.callId) ?? part.kind;
    this.items.push(kind === 'custom' ? { type: 'custom_tool_call_output', call_id: callId, output } : { type: 'function_call_output', call_id: callId, output });
  }

  private closeOrphans(answered: Set<string> | undefined): void {
    if (this.pending.length === 0) return;
    for (const call of this.pending) {
      if (answered?.has(call.id)) continue;
      this.warn('tool_result', 'a tool call without a result was answered with "' + NOT_COMPLETED + '"');
      const callId = fromCallerId(call.id);
      this.items.push(
        call.kind === 'custom'
          ? { type: 'custom_tool_call_output', call_id: callId, output: NOT_COMPLETED }
          : { type: 'function_call_output', call_id: callId, output: NOT_COMPLETED },
      );
    }
    this.pending = [];
  }

  /** Once per distinct warning: a long history would otherwise repeat the same one per turn. */
  private warn(field: string, message: string): void {
    for (const w of this.warnings) if (w.field === field && w.message === message) return;
    this.warnings.push({ field, message });
  }
}

function resultText(part: ToolResultPart): string {
  let text = '';
  for (const c of part.content) {
    const s = c.type === 'text' ? c.text : c.type === 'file' && c.source.kind === 'text' ? (c.title ? c.title + '\n\n' + c.source.data : c.source.data) : '';
    if (s !== '') text = text === '' ? s : text + '\n' + s;
  }
  return part.isError ? errorText(text) : text;
}

// Responses has no is_error flag: the model learns of the failure from the text (mapping.md §15.8).
function errorText(text: string): string {
  return text === '' ? 'Error' : 'Error: ' + text;
}

/** A string when the result is only text; content parts when it holds images or files. */
function resultOutput(part: ToolResultPart, source: Protocol): string | InputContentParam[] {
  let media = false;
  for (const c of part.content) {
    if (c.type === 'image' || (c.type === 'file' && c.source.kind !== 'text')) {
      media = true;
      break;
    }
  }
  if (!media) return resultText(part);
  const out: InputContentParam[] = [];
  for (const c of part.content) {
    const p = inputContent(c, source);
    if (p !== undefined) out.push(p);
  }
  if (part.isError) {
    const first = out[0];
    if (first?.type === 'input_text') out[0] = { type: 'input_text', text: errorText(first.text) };
    else out.unshift({ type: 'input_text', text: 'Error' });
  }
  return out;
}

export function encodeInput(turns: readonly Turn[], source: Protocol, warnings: Warning[], opts: { moreInputFollows?: boolean } = {}): InputItemParam[] {
  const b = new InputBuilder(source, warnings);
  for (const turn of turns) {
    if (turn.role === 'user') b.user(turn.parts);
    else b.assistant(turn.parts);
  }
  // A stored history with the caller's own input after it: that input answers the last calls.
  if (!opts.moreInputFollows) b.finish();
  return b.items;
}
