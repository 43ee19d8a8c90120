// Per-target defaults (used when the caller set nothing) and overrides (always applied) on the IR.
import type { SamplingOverrides, TargetConfig } from '../config/types.js';
import type { IrRequest } from '../ir/types.js';

function isEmpty(o: SamplingOverrides): boolean {
  return o.maxTokens === undefined && o.temperature === undefined && o.topP === undefined && o.reasoningEffort === undefined;
}

export function applyTargetSettings(ir: IrRequest, target: TargetConfig): IrRequest {
  const { defaults, overrides } = target;
  if (isEmpty(defaults) && isEmpty(overrides)) return ir;
  const out: IrRequest = { ...ir };
  out.maxOutputTokens = overrides.maxTokens ?? ir.maxOutputTokens ?? defaults.maxTokens;
  out.temperature = overrides.temperature ?? ir.temperature ?? defaults.temperature;
  out.topP = overrides.topP ?? ir.topP ?? defaults.topP;
  const effort = overrides.reasoningEffort ?? ir.reasoning?.effort ?? defaults.reasoningEffort;
  if (effort !== undefined) out.reasoning = { ...ir.reasoning, effort };
  return out;
}
