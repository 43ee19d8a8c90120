// Responses content parts → IR parts (mapping.md §3): text, images and files by data URL, URL or
// provider file id. Unknown part types are dropped with a warning; a part that names no source at all
// is a 400 naming it.
import { GatewayError } from '../../errors.js';
import { mediaUrlRefusal, type MediaUrlRule } from '../../ir/media-url.js';
import type { FilePart, ImagePart, MediaSource, TextPart, Warning } from '../../ir/types.js';
import { isBase64 } from '../base64-check.js';
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

/** The image types the API takes in a data URL. */
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/webp', 'image/gif']);

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

/**
 * `data:<mime>[;params];base64,<payload>` → base64 source; a URL the media-URL rule allows (https:, or
 * an operator prefix) → URL source. `file_data` may also be a bare base64 payload (then the media type
 * comes from the file name).
 */
function urlSource(value: string, param: string, bareAllowed: boolean, filename: string | undefined, mediaUrls: MediaUrlRule): MediaSource {
  if (value.startsWith('data:')) {
    const comma = value.indexOf(',');
    const meta = comma < 0 ? '' : value.slice(5, comma);
    const params = meta.split(';');
    if (comma < 0 || !params.includes('base64')) {
      throw new GatewayError('invalid_request', `Invalid '${param}': data URLs must be base64-encoded (data:<mime>;base64,…).`, {
        param,
        code: 'invalid_value',
      });
    }
    const mediaType = params[0] !== '' ? params[0]!.toLowerCase() : mediaTypeFor(filename);
    const data = value.slice(comma + 1);
    if (!isBase64(data)) throw badBase64(param);
    return { kind: 'base64', mediaType, data };
  }
  if (bareAllowed && isBase64(value)) return { kind: 'base64', mediaType: mediaTypeFor(filename), data: value };
  const refused = mediaUrlRefusal(value, mediaUrls);
  if (refused === undefined) return { kind: 'url', url: value };
  if (bareAllowed && !/^[A-Za-z][A-Za-z0-9+.-]*:/.test(value)) throw badBase64(param);
  throw new GatewayError('invalid_request', `Invalid '${param}': ${refused}.`, { param, code: 'invalid_value' });
}

function badBase64(param: string): GatewayError {
  return new GatewayError('invalid_request', `Invalid '${param}': the data is not valid base64.`, { param, code: 'invalid_value' });
}

const MEDIA_TYPES: Record<string, string> = {
  pdf: 'application/pdf',
  txt: 'text/plain',
  md: 'text/markdown',
  csv: 'text/csv',
  json: 'application/json',
  html: 'text/html',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
};

function mediaTypeFor(filename: string | undefined): string {
  const dot = filename?.lastIndexOf('.') ?? -1;
  if (filename === undefined || dot < 0) return 'application/pdf';
  return MEDIA_TYPES[filename.slice(dot + 1).toLowerCase()] ?? 'application/octet-stream';
}
