// Wire tool names back to the caller's tools: namespaced and shortened names restored, and the tool's
// kind recovered (custom tools travel as functions taking `{"input": string}`, mapping.md §4).
import { toolNameIndex } from '../../ir/tool-names.js';
import type { ToolDefinition, ToolKind } from '../../ir/types.js';

/** Anthropic's tool-name limit (`^[a-zA-Z0-9_-]{1,128}$`). */
export const ANTHROPIC_TOOL_NAME_MAX = 128;

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
    this.index ??= toolNameIndex(this.tools, ANTHROPIC_TOOL_NAME_MAX);
    const def = this.index.get(wireName);
    if (!def) return { name: wireName, namespace: undefined, kind: 'function' };
    return { name: def.name, namespace: def.namespace, kind: def.kind };
  }
}

/** A custom tool's input object `{"input": "…"}` → the raw input text. Anything else (the model
 * ignored the schema) is returned as JSON text: what it said serves the caller better than nothing. */
export function customInputText(input: unknown): string {
  if (input && typeof input === 'object' && typeof (input as { input?: unknown }).input === 'string') {
    return (input as { input: string }).input;
  }
  return input === undefined ? '' : JSON.stringify(input);
}

/** Streamed custom-tool arguments (the JSON text of the input object) → the raw input text. */
export function customInputFromJson(json: string): string {
  if (json === '') return '';
  try {
    return customInputText(JSON.parse(json));
  } catch {
    // Truncated or invalid JSON: keep the raw text.
    return json;
  }
}
