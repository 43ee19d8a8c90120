// The Gemini front door: `POST /v1beta/models/{model}:generateContent`, `:streamGenerateContent`
// (both stream forms) and `:countTokens` ⇄ IR. The model and the stream form are in the URL, not the
// body, so the route makes a codec per request (`geminiCodec`) that knows them; everything else is
// shared and fixed.
import type { CountingCodec, InboundCodec } from '../types.js';
import { decodeCountRequest, decodeGenerateRequest } from './decode-request.js';
import { encodeError } from './encode-error.js';
import { createStreamEncoder } from './encode-events.js';
import { encodeResult } from './encode-result.js';
import { keepAliveFor, type StreamForm } from './stream-form.js';

export type { StreamForm };

/** What the route read from the URL. `stream` is undefined for `:generateContent` and `:countTokens`. */
export interface GeminiCall {
  model: string;
  stream?: StreamForm;
}

export interface GeminiDoorCodec extends CountingCodec {
  readonly streamForm: StreamForm;
}

export function geminiCodec(call: GeminiCall): GeminiDoorCodec {
  const form = call.stream ?? 'sse';
  return {
    streamForm: form,
    protocol: 'gemini',
    path: '/v1beta/models/{model}:{method}',
    ownRoutes: true,
    outputLimitField: 'generationConfig.maxOutputTokens',
    requestIdHeader: 'x-request-id',
    responseIdPrefix: 'gen_',
    keepAliveFrame: keepAliveFor(form),
    countEndpoint: 'countTokens',
    streamContentType: form === 'json-array' ? 'application/json; charset=utf-8' : undefined,
    decodeRequest: (body, warnings, mediaUrls) => decodeGenerateRequest(body, call.model, call.stream !== undefined, warnings, mediaUrls),
    decodeCountRequest: (body, warnings, mediaUrls) => decodeCountRequest(body, call.model, warnings, mediaUrls),
    encodeCount: (inputTokens) => '{"totalTokens":' + inputTokens + '}',
    encodeResult,
    createStreamEncoder: (ctx, write) => createStreamEncoder(form, ctx, write),
    encodeError,
  };
}

/** The codec for answers that come before the URL is understood (401, 404, a bad model segment). */
export const geminiErrorCodec: InboundCodec = geminiCodec({ model: '' });

/** The stream form of a Gemini door request's codec (`sse` for any other codec). */
export function streamFormOf(codec: InboundCodec): StreamForm {
  return (codec as Partial<GeminiDoorCodec>).streamForm ?? 'sse';
}
