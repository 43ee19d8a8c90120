// The media addresses the OpenAI doors take (Responses `image_url` / `file_data` / `file_url`, Chat
// `image_url.url` / `file.file_data`): a base64 data URL, a bare base64 payload where the API allows
// one, or a URL the door's media-URL rule lets through (ir/media-url.ts). Shared by both OpenAI doors.
import { GatewayError } from '../errors.js';
import { mediaUrlRefusal, type MediaUrlRule } from '../ir/media-url.js';
import type { MediaSource } from '../ir/types.js';
import { isBase64 } from './base64-check.js';

/** The image types the API takes in a data URL. */
export const IMAGE_TYPES: ReadonlySet<string> = new Set(['image/png', 'image/jpeg', 'image/webp', 'image/gif']);

/**
 * `data:<mime>[;params];base64,<payload>` → base64 source; a URL the media-URL rule allows (https:, or
 * an operator prefix) → URL source. `file_data` may also be a bare base64 payload (then the media type
 * comes from the file name).
 */
export function mediaSource(value: string, param: string, bareAllowed: boolean, filename: string | undefined, mediaUrls: MediaUrlRule): MediaSource {
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
