// The pass-through lane's upstream request for a Messages caller: its own body with only `model` and
// the target's settings replaced, so unknown fields survive untouched.
import type { DriverTarget, EncodedRequest, PassthroughSettings } from '../types.js';
import { MESSAGES_PATH, messagesHeaders } from './request-headers.js';

export function messagesPassthroughRequest(
  callerBody: Record<string, unknown>,
  target: DriverTarget,
  defaults: PassthroughSettings,
  overrides: PassthroughSettings,
): EncodedRequest {
  const body: Record<string, unknown> = { ...callerBody, model: target.model };
  applySettings(body, defaults, false);
  applySettings(body, overrides, true);
  return { path: MESSAGES_PATH, headers: messagesHeaders(target), body: JSON.stringify(body) };
}

function applySettings(body: Record<string, unknown>, s: PassthroughSettings, force: boolean): void {
  const set = (k: string, v: unknown) => {
    if (v !== undefined && (force || body[k] === undefined)) body[k] = v;
  };
  set('max_tokens', s.maxTokens);
  set('temperature', s.temperature);
  set('top_p', s.topP);
  if (s.reasoningEffort !== undefined) {
    const oc = (body.output_config ?? {}) as Record<string, unknown>;
    if (force || oc.effort === undefined) body.output_config = { ...oc, effort: s.reasoningEffort };
  }
}
