// Wire tool names back to the caller's tools: namespace and shortened names restored, and custom tools
// (sent upstream as functions taking `{"input": string}`, mapping.md §4) unwrapped to their raw input.
import { toolNameIndex } from '../../ir/tool-names.js';
import type { ToolDefinition, ToolKind } from '../../ir/types.js';

/** OpenAI's tool-name limit, which every compatible server inherits. */
export const CHAT_TOOL_NAME_MAX = 64;

export interface ResolvedTool {
  name: string;
  namespace: string | undefined;
  kind: ToolKind;
}

export class ToolLookup {
  private index: Map<string, ToolDefinition> | undefined;

  constructor(private readonly tools: readonly ToolDefinition[]) {}

  resolve(wireName: string): ResolvedTool {
    // Built on first use: most responses carry no tool call at all.
    this.index ??= toolNameIndex(this.tools, CHAT_TOOL_NAME_MAX);
    const def = this.index.get(wireName);
    if (!def) return { name: wireName, namespace: undefined, kind: 'function' };
    return { name: def.name, namespace: def.namespace, kind: def.kind };
  }
}

/** `{"input":"…"}` → the raw input text; anything else is returned unchanged (the model misbehaved,
 * and the caller is better served by what it said than by nothing). */
export function unwrapCustomInput(args: string): string {
  try {
    const parsed: unknown = JSON.parse(args);
    if (parsed && typeof parsed === 'object' && typeof (parsed as { input?: unknown }).input === 'string') {
      return (parsed as { input: string }).input;
    }
  } catch {
    // not JSON: keep the raw text
  }
  return args;
}

/** Tool arguments as text: servers occasionally send the parsed object instead of the JSON string. */
export function argumentsText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '';
  return JSON.stringify(value);
}
