// The pass-through lane's upstream body, shared by the drivers whose protocol a caller can speak: the
// caller's own body with only `model` and the target's settings replaced, so unknown fields survive.
// Each protocol names the output limit and the reasoning effort its own way (`fields`).
import { callerJsonOf } from './caller-json.js';
import type { PassthroughSettings } from './types.js';

export interface PassthroughFields {
  /** The output-limit field: `max_tokens` (Messages), `max_output_tokens` (Responses), the deployment's
   * `max_tokens` / `max_completion_tokens` (Chat). */
  maxTokens: string;
  /** The object holding `effort`: `output_config` (Messages), `reasoning` (Responses); undefined for a
   * top-level `reasoning_effort` (Chat). */
  effortParent: string | undefined;
}

export function passthroughBody(
  callerBody: Record<string, unknown>,
  model: string,
  defaults: PassthroughSettings,
  overrides: PassthroughSettings,
  fields: PassthroughFields,
): string {
  // Nothing to change but the model: the caller's own text with the model spliced in.
  if (isEmpty(defaults) && isEmpty(overrides)) {
    const json = callerJsonOf(callerBody);
    if (json !== undefined) return json.text.slice(0, json.modelStart) + JSON.stringify(model) + json.text.slice(json.modelEnd);
  }
  const body: Record<string, unknown> = { ...callerBody, model };
  applySettings(body, defaults, false, fields);
  applySettings(body, overrides, true, fields);
  return JSON.stringify(body);
}

/** Defaults fill what the caller left unset; overrides (`force`) always win. */
function applySettings(body: Record<string, unknown>, s: PassthroughSettings, force: boolean, fields: PassthroughFields): void {
  const set = (k: string, v: unknown) => {
    if (v !== undefined && (force || body[k] === undefined)) body[k] = v;
  };
  set(fields.maxTokens, s.maxTokens);
  set('temperature', s.temperature);
  set('top_p', s.topP);
  const parentKey = fields.effortParent;
  if (s.reasoningEffort === undefined) return;
  if (parentKey === undefined) {
    set('reasoning_effort', s.reasoningEffort);
    return;
  }
  const parent = (body[parentKey] ?? {}) as Record<string, unknown>;
  if (force || parent.effort === undefined) body[parentKey] = { ...parent, effort: s.reasoningEffort };
}

function isEmpty(s: PassthroughSettings): boolean {
  for (const k in s) if (s[k as keyof PassthroughSettings] !== undefined) return false;
  return true;
}
