// IR user-side parts → Messages content blocks (mapping.md §3, messages.md §5): text, images,
// documents and tool results. Blank text is dropped (Anthropic rejects it); what Anthropic cannot take
// (other image types, provider-scoped file ids from another provider) is a 400 naming the part.
import { invalidRequest } from '../../errors.js';
import type { FilePart, ImagePart, TextPart, ToolResultPart } from '../../ir/types.js';
import type {
  UpstreamDocumentBlock,
  UpstreamImageBlock,
  UpstreamTextBlock,
  UpstreamToolResultBlock,
  UpstreamToolResultContent,
} from '../../protocols/anthropic-messages/upstream-request.js';

type ImageMediaType = Extract<UpstreamImageBlock['source'], { type: 'base64' }>['media_type'];

const IMAGE_TYPES: ReadonlySet<string> = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);
const NON_BLANK = /\S/;

/** `image/PNG; name=x` → `image/png`; the common `image/jpg` slip → `image/jpeg`. */
function normalizeMediaType(raw: string): string {
  let t = raw.trim().toLowerCase();
  const semi = t.indexOf(';');
  if (semi !== -1) t = t.slice(0, semi).trim();
  return t === 'image/jpg' ? 'image/jpeg' : t;
}

function imageMediaType(raw: string): ImageMediaType | undefined {
  const t = normalizeMediaType(raw);
  return IMAGE_TYPES.has(t) ? (t as ImageMediaType) : undefined;
}

export function isBlank(text: string): boolean {
  return !NON_BLANK.test(text);
}

/** undefined for blank text, which Anthropic rejects. */
export function textBlock(part: TextPart): UpstreamTextBlock | undefined {
  if (isBlank(part.text)) return undefined;
  return part.cacheControl != null ? { type: 'text', text: part.text, cache_control: part.cacheControl } : { type: 'text', text: part.text };
}

/** `sameFamily`: the caller speaks Messages, so its file ids are Anthropic file ids and may pass. */
export function imageBlock(part: ImagePart, param: string, sameFamily: boolean): UpstreamImageBlock {
  const s = part.source;
  let source: UpstreamImageBlock['source'];
  switch (s.kind) {
    case 'base64': {
      const mediaType = imageMediaType(s.mediaType);
      if (!mediaType) {
        throw invalidRequest(`image media type ${s.mediaType} is not supported by the upstream (image/jpeg, image/png, image/gif, image/webp)`, param);
      }
      source = { type: 'base64', media_type: mediaType, data: s.data };
      break;
    }
    case 'url':
      source = { type: 'url', url: s.url };
      break;
    case 'file-id':
      if (!sameFamily) throw invalidRequest('image file ids are provider-scoped and cannot be sent to an Anthropic upstream', param);
      source = { type: 'file', file_id: s.fileId };
      break;
    default: {
      const never: never = s;
      return never;
    }
  }
  return part.cacheControl != null ? { type: 'image', source, cache_control: part.cacheControl } : { type: 'image', source };
}

/** A document block (PDF or plain text); an image sent as a file becomes an image block. undefined
 * for an empty text document. */
export function fileBlock(part: FilePart, param: string, sameFamily: boolean): UpstreamDocumentBlock | UpstreamImageBlock | undefined {
  const s = part.source;
  let source: UpstreamDocumentBlock['source'];
  switch (s.kind) {
    case 'text':
      if (s.data === '') return undefined;
      source = { type: 'text', media_type: 'text/plain', data: s.data };
      break;
    case 'base64': {
      const mediaType = normalizeMediaType(s.mediaType);
      if (mediaType === 'application/pdf') {
        source = { type: 'base64', media_type: 'application/pdf', data: s.data };
      } else if (mediaType.startsWith('text/')) {
        const text = Buffer.from(s.data, 'base64').toString('utf8');
        if (text === '') return undefined;
        source = { type: 'text', media_type: 'text/plain', data: text };
      } else if (IMAGE_TYPES.has(mediaType)) {
        return imageBlock({ type: 'image', source: s, cacheControl: part.cacheControl }, param, sameFamily);
      } else {
        throw invalidRequest(`file media type ${s.mediaType} is not supported by the upstream (PDF and plain text only)`, param);
      }
      break;
    }
    case 'url':
      source = { type: 'url', url: s.url };
      break;
    case 'file-id':
      if (!sameFamily) throw invalidRequest('file ids are provider-scoped and cannot be sent to an Anthropic upstream', param);
      source = { type: 'file', file_id: s.fileId };
      break;
    default: {
      const never: never = s;
      return never;
    }
  }
  const block: UpstreamDocumentBlock = { type: 'document', source };
  // The model sees the title; a filename is the best title a Responses caller gives.
  const title = part.title ?? part.filename;
  if (title) block.title = title;
  if (part.cacheControl != null) block.cache_control = part.cacheControl;
  return block;
}

/** A tool result; its content is a plain string when it is a single uncached text, the simplest form. */
export function toolResultBlock(part: ToolResultPart, toolUseId: string, param: string, sameFamily: boolean): UpstreamToolResultBlock {
  const content: UpstreamToolResultContent[] = [];
  for (let k = 0; k < part.content.length; k++) {
    const item = part.content[k]!;
    let block: UpstreamToolResultContent | undefined;
    switch (item.type) {
      case 'text':
        block = textBlock(item);
        break;
      case 'image':
        block = imageBlock(item, `${param}.content.${k}`, sameFamily);
        break;
      case 'file':
        block = fileBlock(item, `${param}.content.${k}`, sameFamily);
        break;
      default: {
        const never: never = item;
        return never;
      }
    }
    if (block) content.push(block);
  }
  const out: UpstreamToolResultBlock = { type: 'tool_result', tool_use_id: toolUseId };
  if (content.length === 1 && content[0]!.type === 'text' && content[0]!.cache_control === undefined) out.content = content[0]!.text;
  else if (content.length > 0) out.content = content;
  if (part.isError) out.is_error = true;
  if (part.cacheControl != null) out.cache_control = part.cacheControl;
  return out;
}

/** A result whose call is not in the previous assistant message (Anthropic rejects it there): the
 * model reads it as user content instead, introduced by a line naming the call. */
export function orphanResultBlocks(result: UpstreamToolResultBlock): (UpstreamTextBlock | UpstreamToolResultContent)[] {
  const header = `Result of tool call ${result.tool_use_id}${result.is_error ? ' (error)' : ''}:`;
  const content = result.content;
  if (content === undefined) return [{ type: 'text', text: header }];
  if (typeof content === 'string') return [{ type: 'text', text: header + '\n' + content }];
  return [{ type: 'text', text: header }, ...content];
}
