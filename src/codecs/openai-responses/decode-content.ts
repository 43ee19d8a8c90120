// Responses content parts → IR parts (mapping.md §3): text, images and files by data URL, URL or
// provider file id. Unknown part types are dropped with a warning; a part that names no source at all
// is a 400 naming it.
import { GatewayError } from '../../errors.js';
import type { MediaUrlRule } from '../../ir/media-url.js';
import type { FilePart, ImagePart, MediaSource, TextPart, Warning } from '../../ir/types.js';
import { IMAGE_TYPES, mediaSource as urlSource } from '../openai-media.js';
import type {
  ContentPartBody,
  InputFilePartBody,
  InputImagePartBody,
  KnownContentPartBody,
} from '../../protocols/openai-responses/content-parts.js';

export type ContentIrPart = TextPart | ImagePart | FilePart;

/** One content part → an IR part, or undefined when dropped (with a warning). `param` names the part;
 * `mediaUrls` is the door's rule for `image_url` / `file_url` addresses (ir/media-url.ts). */
export function contentPart(part: ContentPartBody, param: string, warnings: Warning[], mediaUrls: MediaUrlRule): ContentIrPart | undefined {
  const p = part as KnownContentPartBody;
  switch (p.type) {
    case 'input_text':
    case 'output_text':
      return { type: 'text', text: p.text };
    case 'refusal':
      return { type: 'text', text: p.refusal, refusal: true };
    case 'input_image':
      return imagePart(p, param, mediaUrls);
    case 'input_file':
      return filePart(p, param, mediaUrls);
    default:
      warnings.push({ field: 'input.content', message: `content part type ${part.type} cannot be translated; dropped` });
      return undefined;
  }
}

function imagePart(p: InputImagePartBody, param: string, mediaUrls: MediaUrlRule): ImagePart {
  let source: MediaSource;
  if (p.image_url != null && p.image_url !== '') {
    source = urlSource(p.image_url, param + '.image_url', false, undefined, mediaUrls);
    if (source.kind === 'base64' && !IMAGE_TYPES.has(source.mediaType)) {
      throw new GatewayError(
        'invalid_request',
        `Invalid '${param}.image_url'. Expected a base64-encoded data URL with an image MIME type (e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), but got unsupported MIME type '${source.mediaType}'.`,
        { param: param + '.image_url', code: 'invalid_value' },
      );
    }
  }
  else if (p.file_id != null && p.file_id !== '') source = { kind: 'file-id', fileId: p.file_id };
  else throw missing(param + '.image_url', 'an input_image needs image_url or file_id');
  const part: ImagePart = { type: 'image', source };
  if (p.detail != null) part.detail = p.detail;
  return part;
}

function filePart(p: InputFilePartBody, param: string, mediaUrls: MediaUrlRule): FilePart {
  let source: MediaSource;
  const filename = p.filename ?? undefined;
  if (p.file_data != null && p.file_data !== '') source = urlSource(p.file_data, param + '.file_data', true, filename, mediaUrls);
  else if (p.file_url != null && p.file_url !== '') source = urlSource(p.file_url, param + '.file_url', false, filename, mediaUrls);
  else if (p.file_id != null && p.file_id !== '') source = { kind: 'file-id', fileId: p.file_id };
  else throw missing(param + '.file_data', 'an input_file needs file_data, file_url or file_id');
  const part: FilePart = { type: 'file', source };
  if (p.filename != null) part.filename = p.filename;
  return part;
}

function missing(param: string, why: string): GatewayError {
  return new GatewayError('invalid_request', `Missing required parameter: '${param}' (${why}).`, {
    param,
    code: 'missing_required_parameter',
  });
}
