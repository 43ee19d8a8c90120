// Model allow-lists: exact aliases and glob patterns (`claude-*`), compiled once per config. A caller
// may use a model when both its key's list and its team's list (each: absent = all) admit it.
import { globToRegExp } from '../config/load-config.js';
import { GatewayError } from '../errors.js';
import type { Caller, ModelMatcher } from './caller.js';

export type { ModelMatcher } from './caller.js';

export function compileAllowList(patterns: readonly string[]): ModelMatcher {
  const exact = new Set<string>();
  const globs: RegExp[] = [];
  for (const p of patterns) {
    if (/[*?[]/.test(p)) globs.push(globToRegExp(p));
    else exact.add(p);
  }
  return { exact, patterns: globs };
}

export function matches(matcher: ModelMatcher | undefined, model: string): boolean {
  if (matcher === undefined) return true;
  if (matcher.exact.has(model)) return true;
  for (const re of matcher.patterns) if (re.test(model)) return true;
  return false;
}

/** Whether the caller may call `model` (the alias as the caller wrote it). Admin keys call nothing. */
export function mayUse(caller: Caller, model: string): boolean {
  if (caller.admin) return false;
  return matches(caller.key.models, model) && (caller.teamPolicy === undefined || matches(caller.teamPolicy.models, model));
}

/** The aliases of a model list (`/v1/models`) this caller may use, in their order. */
export function visibleModels<T extends string>(caller: Caller, aliases: readonly T[]): T[] {
  return aliases.filter((a) => mayUse(caller, a));
}

/**
 * Why the caller may not call `model`, as the error its door answers (undefined when it may): admin
 * keys are refused outright; a model outside the allow-lists is not found, naming it, as the vendors
 * answer a model you may not use.
 */
export function modelAccessError(caller: Caller, model: string): GatewayError | undefined {
  if (caller.admin) return new GatewayError('permission', 'admin keys manage the gateway and cannot call models; use a key from auth.keys');
  if (mayUse(caller, model)) return undefined;
  return modelNotAvailable(model);
}

/**
 * The one answer for a model this gateway does not serve and for one this key may not use: a key must
 * not learn from the wording which aliases exist beyond its allow-list.
 */
export function modelNotAvailable(model: string): GatewayError {
  return new GatewayError('not_found', `model "${model}" is not available: not configured on this gateway, or not allowed for this API key`, {
    param: 'model',
    code: 'model_not_found',
  });
}
