// IR user-side parts (text, image, file) → Responses input content parts (mapping.md §3). Used for
// user messages and for tool results that carry images or files.
import { GatewayError } from '../../errors.js';
import type { FilePart, ImagePart, Protocol, TextPart } from '../../ir/types.js';
import type { InputContentParam, InputFileParam, InputImageParam } from '../../protocols/openai-responses/upstream-request.js';

function dataUrl(mediaType: string, data: string): string {
  return 'data:' + mediaType + ';base64,' + data;
}

/** File ids are scoped to the provider that issued them: only a Responses caller's ids are OpenAI's. */
function checkFileId(source: Protocol): void {
  if (source !== 'responses') {
    throw new GatewayError('invalid_request', 'file ids are provider-scoped and cannot be sent to an OpenAI Responses upstream; send the file content instead', {
      param: source === 'messages' ? 'messages' : 'input',
    });
  }
}

function imageParam(part: ImagePart, source: Protocol): InputImageParam {
  const detail = part.detail ?? 'auto';
  const s = part.source;
  switch (s.kind) {
    case 'base64':
      return { type: 'input_image', image_url: dataUrl(s.mediaType, s.data), detail };
    case 'url':
      return { type: 'input_image', image_url: s.url, detail };
    case 'file-id':
      checkFileId(source);
      return { type: 'input_image', file_id: s.fileId, detail };
    default: {
      const never: never = s;
      return never;
    }
  }
}

function fileParam(part: FilePart, source: Protocol): InputContentParam | undefined {
  const s = part.source;
  switch (s.kind) {
    case 'text': {
      // Responses has no plain-text document part: the text itself, introduced by its title.
      const text = part.title ? part.title + '\n\n' + s.data : s.data;
      return text === '' ? undefined : { type: 'input_text', text };
    }
    case 'base64': {
      const filename = part.filename ?? part.title ?? (s.mediaType === 'application/pdf' ? 'document.pdf' : 'document');
      return { type: 'input_file', filename, file_data: dataUrl(s.mediaType, s.data) };
    }
    case 'url': {
      const p: InputFileParam = { type: 'input_file', file_url: s.url };
      if (part.filename !== undefined) p.filename = part.filename;
      return p;
    }
    case 'file-id':
      checkFileId(source);
      return { type: 'input_file', file_id: s.fileId };
    default: {
      const never: never = s;
      return never;
    }
  }
}

/** One part as input content; undefined for parts with nothing to send (empty text). */
export function inputContent(part: TextPart | ImagePart | FilePart, source: Protocol): InputContentParam | undefined {
  switch (part.type) {
    case 'text':
      return part.text === '' ? undefined : { type: 'input_text', text: part.text };
    case 'image':
      return imageParam(part, source);
    case 'file':
      return fileParam(part, source);
    default: {
      const never: never = part;
      return never;
    }
  }
}
