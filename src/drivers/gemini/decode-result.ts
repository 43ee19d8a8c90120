// Non-streamed GenerateContentResponse → IrResult: the stream decoder fed the one object, folded
// (ir/fold-events.ts), so a streamed and a non-streamed answer decode alike by construction.
import { GatewayError, type GatewayErrorKind } from '../../errors.js';
import { EventFolder } from '../../ir/fold-events.js';
import type { IrRequest, IrResult } from '../../ir/types.js';
import type { GeminiResponse } from '../../protocols/gemini/response.js';
import { GeminiEventDecoder } from './decode-events.js';

export function decodeGeminiResult(json: unknown, req: IrRequest): IrResult {
  if (!json || typeof json !== 'object' || Array.isArray(json)) throw new GatewayError('api_error', 'upstream sent a malformed GenerateContentResponse');
  const folder = new EventFolder();
  const decoder = new GeminiEventDecoder(req, (ev) => folder.push(ev));
  decoder.response(json as GeminiResponse);
  decoder.end();
  const error = folder.error;
  if (error) throw new GatewayError(error.kind as GatewayErrorKind, error.message, error.status === undefined ? {} : { upstreamStatus: error.status });
  return folder.result();
}
