// The pass-through lane's upstream request for a Messages caller (drivers/passthrough-body.ts).
import { passthroughBody } from '../passthrough-body.js';
import type { DriverTarget, EncodedRequest, PassthroughSettings } from '../types.js';
import { MESSAGES_PATH, messagesHeaders } from './request-headers.js';

const FIELDS = { maxTokens: 'max_tokens', effortParent: 'output_config' };

export function messagesPassthroughRequest(
  callerBody: Record<string, unknown>,
  target: DriverTarget,
  defaults: PassthroughSettings,
  overrides: PassthroughSettings,
): EncodedRequest {
  return { path: MESSAGES_PATH, headers: messagesHeaders(target), body: passthroughBody(callerBody, target.model, defaults, overrides, FIELDS) };
}
