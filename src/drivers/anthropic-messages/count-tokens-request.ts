// `POST /v1/messages/count_tokens`: the caller's own body when it is a Messages caller, else the IR
// encoded as a generation request; in both cases without the fields the endpoint rejects.
import type { IrRequest } from '../../ir/types.js';
import { countTokensBody } from '../count-tokens.js';
import type { DriverTarget, EncodedRequest } from '../types.js';
import { encodeMessagesRequest } from './encode-request.js';
import { COUNT_TOKENS_PATH, messagesHeaders } from './request-headers.js';

export function messagesCountTokensRequest(req: IrRequest, target: DriverTarget, callerBody: Record<string, unknown> | undefined): EncodedRequest {
  let payload: Record<string, unknown>;
  if (callerBody) {
    payload = { ...callerBody, model: target.model };
  } else {
    // A counting request may omit max_tokens; the generation encoder requires one.
    const enc = encodeMessagesRequest({ ...req, maxOutputTokens: req.maxOutputTokens ?? 1, stream: false }, target, false, []);
    payload = JSON.parse(enc.body) as Record<string, unknown>;
  }
  return { path: COUNT_TOKENS_PATH, headers: messagesHeaders(target), body: countTokensBody(payload) };
}
