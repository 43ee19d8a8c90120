// Responses `input` items → IR system text and turns (mapping.md §1, §2). system/developer messages
// are hoisted into `system` in order; user messages and tool outputs fold into user turns (tool
// results first), assistant messages, calls and reasoning into assistant turns; a role change starts
// a new turn. Item ids and statuses are accepted and ignored; item references were resolved before.
import { GatewayError } from '../../errors.js';
import { mediaUrlRefusal, type MediaUrlRule } from '../../ir/media-url.js';
import type {
  AssistantPart,
  ReasoningCarry,
  ReasoningPart,
  TextPart,
  ToolCallPart,
  ToolResultContent,
  ToolResultPart,
  Turn,
  UserPart,
  Warning,
} from '../../ir/types.js';
import { decodeEnvelope, isEnvelope } from '../../ir/reasoning-envelope.js';
import type { ContentPartBody } from '../../protocols/openai-responses/content-parts.js';
import { BUILT_IN_ITEM_TYPES } from '../../protocols/openai-responses/input-items.js';
import type {
  CustomToolCallItemBody,
  FunctionCallItemBody,
  InputItemBody,
  ItemReferenceBody,
  MessageItemBody,
  ReasoningItemBody,
  ToolOutputItemBody,
} from '../../protocols/openai-responses/input-items.js';
import { contentPart } from './decode-content.js';

/** Built-in item types (validated as such; named in warnings). */
const BUILT_IN_ITEMS: ReadonlySet<string> = new Set(BUILT_IN_ITEM_TYPES);

type KnownItem =
  | MessageItemBody
  | FunctionCallItemBody
  | ToolOutputItemBody
  | CustomToolCallItemBody
  | ReasoningItemBody
  | (ItemReferenceBody & { type?: 'item_reference' | null });

class TurnBuilder {
  readonly turns: Turn[] = [];
  /** The open user turn's tool results and other parts, kept apart so results come first. */
  private results: UserPart[] | undefined;
  private userRest: UserPart[] | undefined;
  private assistant: AssistantPart[] | undefined;

  user(part: UserPart): void {
    if (this.results === undefined) {
      this.closeAssistant();
      this.results = [];
      this.userRest = [];
    }
    if (part.type === 'tool-result') this.results.push(part);
    else this.userRest!.push(part);
  }

  assistantPart(part: AssistantPart): void {
    if (this.assistant === undefined) {
      this.closeUser();
      this.assistant = [];
    }
    this.assistant.push(part);
  }

  finish(): Turn[] {
    this.closeUser();
    this.closeAssistant();
    return this.turns;
  }

  private closeUser(): void {
    if (this.results === undefined) return;
    const parts = this.results.length === 0 ? this.userRest! : this.results.concat(this.userRest!);
    this.turns.push({ role: 'user', parts });
    this.results = undefined;
    this.userRest = undefined;
  }

  private closeAssistant(): void {
    if (this.assistant === undefined) return;
    this.turns.push({ role: 'assistant', parts: this.assistant });
    this.assistant = undefined;
  }
}

/** Decodes `input`; system/developer text is appended to `system`. `mediaUrls`: the door's media-URL rule. */
export function decodeInput(input: string | readonly InputItemBody[], system: TextPart[], warnings: Warning[], mediaUrls: MediaUrlRule): Turn[] {
  if (typeof input === 'string') return [{ role: 'user', parts: [{ type: 'text', text: input }] }];
  const b = new TurnBuilder();
  let phaseWarned = false;
  for (let i = 0; i < input.length; i++) {
    const item = input[i] as KnownItem;
    const param = 'input[' + i + ']';
    switch (item.type) {
      case undefined:
      case null:
      case 'message':
        if ('role' in item) {
          if (!phaseWarned && (item as { phase?: unknown }).phase != null) {
            phaseWarned = true;
            warnings.push({ field: 'input.phase', message: 'assistant message phase is not translated; dropped' });
          }
          message(item, param, b, system, warnings, mediaUrls);
        }
        // else a bare `{id}` reference: see the item_reference case.
        break;
      case 'function_call':
        b.assistantPart(toolCall(item.call_id, item.name, item.arguments, 'function', item.id, item.namespace));
        break;
      case 'custom_tool_call':
        b.assistantPart(toolCall(item.call_id, item.name, item.input, 'custom', item.id, item.namespace));
        break;
      case 'function_call_output':
      case 'custom_tool_call_output':
        b.user(toolResult(item, param, warnings, mediaUrls));
        break;
      case 'reasoning':
        b.assistantPart(reasoning(item, warnings));
        break;
      case 'item_reference':
        // The first decode (validation, before admission) sees every reference; after admission they
        // are replaced by the stored items and the body decoded again (expand-item-references). One
        // still here then was kept for an OpenAI Responses deployment, which resolves it from its own
        // store on the pass-through lane; attempts on other protocols are refused before they start.
        break;
      default: {
        const type = (item as { type: string }).type;
        // Dropped in translation, but forwarded as is on the pass-through lane: its screenshot URL too.
        if (type === 'computer_call_output') checkScreenshotUrl(item, param, mediaUrls);
        warnings.push({
          field: 'input.' + (BUILT_IN_ITEMS.has(type) ? type : 'other'),
          message: `input item type ${type} cannot be translated; dropped`,
        });
      }
    }
  }
  return b.finish();
}

function checkScreenshotUrl(item: object, param: string, mediaUrls: MediaUrlRule): void {
  const url = (item as { output?: { image_url?: unknown } }).output?.image_url;
  if (typeof url !== 'string') return;
  const refused = mediaUrlRefusal(url, mediaUrls);
  if (refused === undefined) return;
  const at = param + '.output.image_url';
  throw new GatewayError('invalid_request', `Invalid '${at}': ${refused}.`, { param: at, code: 'invalid_value' });
}

function message(item: MessageItemBody, param: string, b: TurnBuilder, system: TextPart[], warnings: Warning[], mediaUrls: MediaUrlRule): void {
  const content = item.content;
  switch (item.role) {
    case 'system':
    case 'developer':
      if (typeof content === 'string') system.push({ type: 'text', text: content });
      else {
        for (let j = 0; j < content.length; j++) {
          const part = contentPart(content[j]!, param + '.content[' + j + ']', warnings, mediaUrls);
          if (part === undefined) continue;
          if (part.type === 'text') system.push(part.refusal ? { type: 'text', text: part.text } : part);
          else warnings.push({ field: 'input.content', message: `${part.type} content in a ${item.role} message cannot be translated; dropped` });
        }
      }
      return;
    case 'user':
      if (typeof content === 'string') b.user({ type: 'text', text: content });
      else for (let j = 0; j < content.length; j++) addUserPart(content[j]!, param + '.content[' + j + ']', b, warnings, mediaUrls);
      return;
    case 'assistant':
      if (typeof content === 'string') b.assistantPart({ type: 'text', text: content });
      else {
        for (let j = 0; j < content.length; j++) {
          const part = contentPart(content[j]!, param + '.content[' + j + ']', warnings, mediaUrls);
          if (part === undefined) continue;
          if (part.type === 'text') b.assistantPart(part);
          else warnings.push({ field: 'input.content', message: `${part.type} content in an assistant message cannot be translated; dropped` });
        }
      }
      return;
    default: {
      const never: never = item.role;
      return never;
    }
  }
}

function addUserPart(body: ContentPartBody, param: string, b: TurnBuilder, warnings: Warning[], mediaUrls: MediaUrlRule): void {
  const part = contentPart(body, param, warnings, mediaUrls);
  if (part !== undefined) b.user(part);
}

function toolCall(
  callId: string,
  name: string,
  args: string,
  kind: 'function' | 'custom',
  itemId: string | null | undefined,
  namespace: string | null | undefined,
): ToolCallPart {
  const part: ToolCallPart = { type: 'tool-call', id: callId, name, arguments: args, kind };
  if (itemId != null && itemId !== '') part.itemId = itemId;
  if (namespace != null && namespace !== '') part.namespace = namespace;
  return part;
}

function toolResult(item: ToolOutputItemBody, param: string, warnings: Warning[], mediaUrls: MediaUrlRule): ToolResultPart {
  const output = item.output;
  let content: ToolResultContent[];
  if (typeof output === 'string') content = output === '' ? [] : [{ type: 'text', text: output }];
  else {
    content = [];
    for (let j = 0; j < output.length; j++) {
      const part = contentPart(output[j]!, param + '.output[' + j + ']', warnings, mediaUrls);
      if (part !== undefined) content.push(part);
    }
  }
  return {
    type: 'tool-result',
    callId: item.call_id,
    content,
    isError: false,
    kind: item.type === 'custom_tool_call_output' ? 'custom' : 'function',
  };
}

/**
 * A replayed reasoning item: our own envelope restores the carry it wraps (any family); a native
 * `encrypted_content` is OpenAI's; without one the item still carries its id and summary.
 */
function reasoning(item: ReasoningItemBody, warnings: Warning[]): ReasoningPart {
  const summary = item.summary ?? [];
  let text = '';
  for (let i = 0; i < summary.length; i++) text = i === 0 ? summary[i]!.text : text + '\n\n' + summary[i]!.text;
  if (text === '' && item.content) for (const c of item.content) text = text === '' ? c.text : text + '\n\n' + c.text;
  const encrypted = item.encrypted_content;
  let carry: ReasoningCarry | undefined;
  if (encrypted != null && isEnvelope(encrypted)) {
    carry = decodeEnvelope(encrypted);
    if (carry === undefined) {
      warnings.push({ field: 'input.reasoning', message: 'reasoning encrypted_content is a damaged gateway envelope; its opaque state was dropped' });
    }
  } else {
    carry = { family: 'openai', id: item.id ?? '', encryptedContent: encrypted ?? null, summary };
  }
  return carry === undefined ? { type: 'reasoning', text } : { type: 'reasoning', text, carry };
}
