// The pass-through lane's upstream request for a Responses caller: its own body with only `model` and
// the target's settings replaced, so unknown fields survive untouched.
import { openaiHeaders } from '../openai-headers.js';
import type { DriverTarget, EncodedRequest, PassthroughSettings } from '../types.js';
import { RESPONSES_PATH } from './paths.js';

export function responsesPassthroughRequest(
  callerBody: Record<string, unknown>,
  target: DriverTarget,
  defaults: PassthroughSettings,
  overrides: PassthroughSettings,
): EncodedRequest {
  const body: Record<string, unknown> = { ...callerBody, model: target.model };
  applySettings(body, defaults, false);
  applySettings(body, overrides, true);
  return { path: RESPONSES_PATH, headers: openaiHeaders(target), body: JSON.stringify(body) };
}

function applySettings(body: Record<string, unknown>, s: PassthroughSettings, force: boolean): void {
  const set = (k: string, v: unknown) => {
    if (v !== undefined && (force || body[k] === undefined)) body[k] = v;
  };
  set('max_output_tokens', s.maxTokens);
  set('temperature', s.temperature);
  set('top_p', s.topP);
  if (s.reasoningEffort !== undefined) {
    const r = (body.reasoning ?? {}) as Record<string, unknown>;
    if (force || r.effort === undefined) body.reasoning = { ...r, effort: s.reasoningEffort };
  }
}
