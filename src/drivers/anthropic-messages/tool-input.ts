// IR tool-call arguments (raw JSON text) → the JSON object Anthropic's `tool_use.input` must be
// (mapping.md §15.10–12), and caller-facing call ids → ids Anthropic accepts (§6, §15.22).
import { parseToolArguments } from '../../ir/tool-arguments.js';
import { fromCallerId, toCallerId } from '../../ir/tool-ids.js';
import type { ToolCallPart } from '../../ir/types.js';

const ANTHROPIC_ID = /^[a-zA-Z0-9_-]+$/;

/** The upstream id for a caller's call id: the original upstream id when it fits Anthropic's pattern,
 * else (ids another upstream made, like `functions.get_weather:0`) its reversible re-encoding. The same
 * function maps `tool_use.id` and `tool_result.tool_use_id`, so pairs still match. */
export function upstreamToolId(callerId: string): string {
  const id = fromCallerId(callerId);
  return ANTHROPIC_ID.test(id) ? id : toCallerId(id);
}

/** Truncated arguments are repaired; `undefined` when they are not JSON at all (the caller sends `{}`
 * and warns). */
export function toolInput(call: ToolCallPart): Record<string, unknown> | undefined {
  // Custom tools travel as functions taking one string (mapping.md §4).
  if (call.kind === 'custom') return { input: call.arguments };
  return parseToolArguments(call.arguments);
}
