// Chat content parts → IR parts (mapping.md §3): text, `image_url` (a data URL or a URL the door's
// media rule allows) and `file` (base64 `file_data` or a provider `file_id`). `input_audio` has no IR
// part: only a Chat Completions upstream takes it, so it marks the request pass-through only.
import { GatewayError } from '../../errors.js';
import type { MediaUrlRule } from '../../ir/media-url.js';
import type { FilePart, ImagePart, IrRequest, MediaSource, TextPart } from '../../ir/types.js';
import type { UserContentPartBody } from '../../protocols/openai-chat/door-request.js';
import { IMAGE_TYPES, mediaSource } from '../openai-media.js';

export type UserContentIrPart = TextPart | ImagePart | FilePart;

/** One user content part → its IR part; undefined for a part only the pass-through can carry. */
export function userContentPart(part: UserContentPartBody, param: string, ir: IrRequest, mediaUrls: MediaUrlRule): UserContentIrPart | undefined {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'image_url':
      return imagePart(part.image_url, param + '.image_url', mediaUrls);
    case 'file':
      return filePart(part.file, param + '.file', mediaUrls);
    case 'input_audio':
      ir.passthroughOnly ??= {
        param,
        message: `Invalid '${param}': audio input is only accepted when the model is served by a Chat Completions upstream; model '${ir.model}' is not.`,
      };
      return undefined;
    default: {
      const never: never = part;
      return never;
    }
  }
}

function imagePart(image: { url: string; detail?: string | null }, param: string, mediaUrls: MediaUrlRule): ImagePart {
  const source = mediaSource(image.url, param + '.url', false, undefined, mediaUrls);
  if (source.kind === 'base64' && !IMAGE_TYPES.has(source.mediaType)) {
    throw new GatewayError(
      'invalid_request',
      `Invalid '${param}.url'. Expected a base64-encoded data URL with an image MIME type (e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), but got unsupported MIME type '${source.mediaType}'.`,
      { param: param + '.url', code: 'invalid_value' },
    );
  }
  const part: ImagePart = { type: 'image', source };
  if (image.detail != null) part.detail = image.detail;
  return part;
}

function filePart(file: { file_data?: string | null; file_id?: string | null; filename?: string | null }, param: string, mediaUrls: MediaUrlRule): FilePart {
  const filename = file.filename ?? undefined;
  let source: MediaSource;
  if (file.file_data != null && file.file_data !== '') source = mediaSource(file.file_data, param + '.file_data', true, filename, mediaUrls);
  else if (file.file_id != null && file.file_id !== '') source = { kind: 'file-id', fileId: file.file_id };
  else {
    throw new GatewayError('invalid_request', `Missing required parameter: '${param}.file_data' (a file part needs file_data or file_id).`, {
      param: param + '.file_data',
      code: 'missing_required_parameter',
    });
  }
  const part: FilePart = { type: 'file', source };
  if (filename !== undefined) part.filename = filename;
  return part;
}
