// `POST /responses/input_tokens`: the caller's own body when it is a Responses caller, else the IR
// encoded as a generation request; in both cases without the fields the endpoint rejects.
import type { IrRequest } from '../../ir/types.js';
import { countTokensBody } from '../count-tokens.js';
import { openaiHeaders } from '../openai-headers.js';
import type { DriverTarget, EncodedRequest } from '../types.js';
import { encodeResponsesRequest } from './encode-request.js';
import { INPUT_TOKENS_PATH } from './paths.js';

export function responsesCountTokensRequest(req: IrRequest, target: DriverTarget, callerBody: Record<string, unknown> | undefined): EncodedRequest {
  let payload: Record<string, unknown>;
  if (callerBody) {
    payload = { ...callerBody, model: target.model };
  } else {
    const enc = encodeResponsesRequest({ ...req, maxOutputTokens: req.maxOutputTokens ?? 1, stream: false }, target, false, []);
    payload = JSON.parse(enc.body) as Record<string, unknown>;
  }
  return { path: INPUT_TOKENS_PATH, headers: openaiHeaders(target), body: countTokensBody(payload) };
}
