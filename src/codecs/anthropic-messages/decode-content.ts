// Anthropic content blocks → IR parts. Blocks the IR cannot express are dropped with a warning (the
// pass-through lane forwards the raw body, so only translation loses them).
import { decodeEnvelope, isEnvelope } from '../../ir/reasoning-envelope.js';
import type {
  AssistantPart,
  FilePart,
  ImagePart,
  MediaSource,
  ReasoningCarry,
  TextPart,
  ToolResultContent,
  UserPart,
  Warning,
} from '../../ir/types.js';
import type {
  DocumentBlockParam,
  ImageBlockParam,
  KnownBlockParam,
  TextBlockParam,
  ToolResultBlockParam,
  ToolResultContentParam,
} from '../../protocols/anthropic-messages/content-blocks.js';

type Block = { type: string };
/** Where document parts go: a user turn or a tool result's content. */
type PartSink = { push(part: TextPart | ImagePart | FilePart): unknown };

export function textPart(block: TextBlockParam, warnings: Warning[]): TextPart {
  if (block.citations != null && block.citations.length > 0) {
    warnings.push({ field: 'messages.content.text.citations', message: 'citations on request text blocks are not translated; dropped' });
  }
  return block.cache_control != null ? { type: 'text', text: block.text, cacheControl: block.cache_control } : { type: 'text', text: block.text };
}

function imagePart(block: ImageBlockParam): ImagePart {
  const s = block.source;
  const source: MediaSource =
    s.type === 'base64'
      ? { kind: 'base64', mediaType: s.media_type, data: s.data }
      : s.type === 'url'
        ? { kind: 'url', url: s.url }
        : { kind: 'file-id', fileId: s.file_id };
  return block.cache_control != null ? { type: 'image', source, cacheControl: block.cache_control } : { type: 'image', source };
}

/** A document is one file part, except a `content`-source document, which becomes its text and images. */
function pushDocument(block: DocumentBlockParam, out: PartSink, warnings: Warning[]): void {
  if (block.context != null && block.context !== '') {
    warnings.push({ field: 'messages.content.document.context', message: 'document context is not translated; dropped' });
  }
  if (block.citations?.enabled) {
    warnings.push({ field: 'messages.content.document.citations', message: 'document citations are not translated; dropped' });
  }
  const s = block.source;
  let source: FilePart['source'];
  switch (s.type) {
    case 'base64':
      source = { kind: 'base64', mediaType: s.media_type, data: s.data };
      break;
    case 'text':
      source = { kind: 'text', mediaType: s.media_type, data: s.data };
      break;
    case 'url':
      source = { kind: 'url', url: s.url };
      break;
    case 'file':
      source = { kind: 'file-id', fileId: s.file_id };
      break;
    case 'content': {
      if (typeof s.content === 'string') {
        source = { kind: 'text', mediaType: 'text/plain', data: s.content };
        break;
      }
      warnings.push({ field: 'messages.content.document.content', message: 'a content-source document is sent as its text and image parts' });
      let text: string | undefined;
      let title = block.title ?? undefined;
      const flushText = () => {
        if (text === undefined) return;
        out.push(filePart({ kind: 'text', mediaType: 'text/plain', data: text }, title, block.cache_control));
        text = undefined;
        title = undefined;
      };
      for (const item of s.content) {
        if (item.type === 'text') text = text === undefined ? item.text : text + '\n\n' + item.text;
        else {
          flushText();
          out.push(imagePart(item));
        }
      }
      flushText();
      return;
    }
    default: {
      const never: never = s;
      return never;
    }
  }
  out.push(filePart(source, block.title ?? undefined, block.cache_control));
}

function filePart(source: FilePart['source'], title: string | undefined, cacheControl: unknown): FilePart {
  const part: FilePart = { type: 'file', source };
  if (title != null) part.title = title;
  if (cacheControl != null) part.cacheControl = cacheControl;
  return part;
}

function toolResultContent(block: ToolResultBlockParam, warnings: Warning[]): ToolResultContent[] {
  const c = block.content;
  if (c === undefined) return [];
  if (typeof c === 'string') return [{ type: 'text', text: c }];
  const out: ToolResultContent[] = [];
  for (const item of c as (ToolResultContentParam | Block)[]) {
    if (pushContentBlock(item as ToolResultContentParam, out, warnings)) continue;
    warnings.push({
      field: 'messages.content.tool_result.' + fieldTag(item.type),
      message: `${item.type} blocks inside tool_result cannot be translated; dropped`,
    });
  }
  return out;
}

/** A text, image or document block (what a user turn and a tool result both hold) → its parts; false
 * for any other block. */
function pushContentBlock(block: KnownBlockParam, out: PartSink, warnings: Warning[]): boolean {
  switch (block.type) {
    case 'text':
      out.push(textPart(block, warnings));
      return true;
    case 'image':
      out.push(imagePart(block));
      return true;
    case 'document':
      pushDocument(block, out, warnings);
      return true;
    default:
      return false;
  }
}

/** Opaque reasoning state from a `thinking` signature or `redacted_thinking` data: our envelope when it
 * is one, else the caller's native Anthropic block, byte-exact. */
function carryOf(value: string, native: ReasoningCarry): ReasoningCarry {
  return (isEnvelope(value) && decodeEnvelope(value)) || native;
}

export function userParts(content: readonly Block[], warnings: Warning[]): UserPart[] {
  const parts: UserPart[] = [];
  for (const raw of content) {
    const block = raw as KnownBlockParam;
    if (pushContentBlock(block, parts, warnings)) continue;
    if (block.type === 'tool_result') {
      const part: UserPart = {
        type: 'tool-result',
        callId: block.tool_use_id,
        content: toolResultContent(block, warnings),
        isError: block.is_error === true,
        kind: 'function',
      };
      if (block.cache_control != null) part.cacheControl = block.cache_control;
      parts.push(part);
    } else {
      dropped(raw.type, 'user', warnings);
    }
  }
  return parts;
}

export function assistantParts(content: readonly Block[], warnings: Warning[]): AssistantPart[] {
  const parts: AssistantPart[] = [];
  for (const raw of content) {
    const block = raw as KnownBlockParam;
    switch (block.type) {
      case 'text':
        parts.push(textPart(block, warnings));
        break;
      case 'thinking':
        parts.push({
          type: 'reasoning',
          text: block.thinking,
          carry: carryOf(block.signature, {
            family: 'anthropic',
            block: { type: 'thinking', thinking: block.thinking, signature: block.signature },
          }),
        });
        break;
      case 'redacted_thinking':
        parts.push({
          type: 'reasoning',
          text: '',
          carry: carryOf(block.data, { family: 'anthropic', block: { type: 'redacted_thinking', data: block.data } }),
        });
        break;
      case 'tool_use': {
        const part: AssistantPart = {
          type: 'tool-call',
          id: block.id,
          name: block.name,
          arguments: JSON.stringify(block.input) ?? '{}',
          kind: 'function',
        };
        if (block.cache_control != null) part.cacheControl = block.cache_control;
        parts.push(part);
        break;
      }
      default:
        dropped(raw.type, 'assistant', warnings);
    }
  }
  return parts;
}

/** Text of a `role: "system"` message, hoisted into the system prompt. */
export function systemParts(content: readonly Block[], out: TextPart[], warnings: Warning[]): void {
  for (const raw of content) {
    if (raw.type === 'text') out.push(textPart(raw as TextBlockParam, warnings));
    else dropped(raw.type, 'system', warnings);
  }
}

const KNOWN = new Set(['text', 'image', 'document', 'tool_use', 'tool_result', 'thinking', 'redacted_thinking']);

function dropped(type: string, role: string, warnings: Warning[]): void {
  warnings.push({
    field: 'messages.content.' + fieldTag(type),
    message: KNOWN.has(type)
      ? `${type} blocks are not allowed in a ${role} message; dropped`
      : `${type} blocks cannot be translated; dropped`,
  });
}

/** Block types come from the caller: keep the warning field a bounded, label-safe name. */
function fieldTag(type: string): string {
  return /^[a-z0-9_]{1,48}$/.test(type) ? type : 'unknown';
}
