// The pass-through body for a Gemini door caller to a Gemini deployment: the caller's own body with
// nothing changed — the model is in the path (gemini.md §1), so only the path names the target's
// model. A target's sampling defaults and overrides go into `generationConfig`.
import { callerJsonOf } from '../caller-json.js';
import type { DriverTarget, EncodedRequest, PassthroughSettings } from '../types.js';
import { geminiHeaders, geminiPath } from './paths.js';

const LEVELS: Record<string, string> = { minimal: 'MINIMAL', low: 'LOW', medium: 'MEDIUM', high: 'HIGH' };

export function geminiPassthroughRequest(
  body: Record<string, unknown>,
  target: DriverTarget,
  defaults: PassthroughSettings,
  overrides: PassthroughSettings,
  stream: boolean,
): EncodedRequest {
  return {
    path: geminiPath(target.model, stream ? 'streamGenerateContent' : 'generateContent'),
    headers: geminiHeaders(target),
    body: passthroughText(body, defaults, overrides),
  };
}

function passthroughText(body: Record<string, unknown>, defaults: PassthroughSettings, overrides: PassthroughSettings): string {
  if (isEmpty(defaults) && isEmpty(overrides)) return callerJsonOf(body)?.text ?? JSON.stringify(body);
  const config: Record<string, unknown> = { ...((body.generationConfig as Record<string, unknown> | undefined) ?? {}) };
  apply(config, defaults, false);
  apply(config, overrides, true);
  return JSON.stringify({ ...body, generationConfig: config });
}

/** Defaults fill what the caller left unset; overrides (`force`) always win. */
function apply(config: Record<string, unknown>, s: PassthroughSettings, force: boolean): void {
  const set = (k: string, v: unknown) => {
    if (v !== undefined && (force || config[k] === undefined)) config[k] = v;
  };
  set('maxOutputTokens', s.maxTokens);
  set('temperature', s.temperature);
  set('topP', s.topP);
  const level = s.reasoningEffort !== undefined ? LEVELS[s.reasoningEffort] : undefined;
  if (level !== undefined) {
    const thinking = (config.thinkingConfig ?? {}) as Record<string, unknown>;
    if (force || (thinking.thinkingLevel === undefined && thinking.thinkingBudget === undefined)) {
      const { thinkingBudget: _dropped, ...rest } = thinking;
      config.thinkingConfig = { ...rest, thinkingLevel: level };
    }
  }
}

function isEmpty(s: PassthroughSettings): boolean {
  for (const k in s) if (s[k as keyof PassthroughSettings] !== undefined) return false;
  return true;
}
