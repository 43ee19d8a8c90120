// The pass-through lane's upstream request for a Responses caller (drivers/passthrough-body.ts).
import { openaiHeaders } from '../openai-headers.js';
import { passthroughBody } from '../passthrough-body.js';
import type { DriverTarget, EncodedRequest, PassthroughSettings } from '../types.js';
import { RESPONSES_PATH } from './paths.js';

const FIELDS = { maxTokens: 'max_output_tokens', effortParent: 'reasoning' };

export function responsesPassthroughRequest(
  callerBody: Record<string, unknown>,
  target: DriverTarget,
  defaults: PassthroughSettings,
  overrides: PassthroughSettings,
): EncodedRequest {
  return { path: RESPONSES_PATH, headers: openaiHeaders(target), body: passthroughBody(callerBody, target.model, defaults, overrides, FIELDS) };
}
