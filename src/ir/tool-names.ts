// Tool names that must fit an upstream's rules (OpenAI: ^[a-zA-Z0-9_-]{1,64}$; Anthropic: 1–128 of the
// same alphabet) and Responses `namespace` groups, which only Responses understands. A wire name is
// derived deterministically from (namespace, name); the request's own tool list maps it back.
import { createHash } from 'node:crypto';
import type { ToolDefinition, ToolKind } from './types.js';

const VALID = /^[a-zA-Z0-9_-]+$/;

/** The name an upstream sees for a tool, given that upstream's maximum name length. */
export function wireToolName(name: string, namespace: string | undefined, maxLength: number): string {
  const full = namespace ? namespace + '__' + name : name;
  if (full.length <= maxLength && VALID.test(full)) return full;
  const hash = createHash('sha256').update(full).digest('hex').slice(0, 8);
  const cleaned = full.replace(/[^a-zA-Z0-9_-]/g, '_');
  return cleaned.slice(0, maxLength - 9) + '_' + hash;
}

/** Reverse map for one request: wire name → the tool definition it came from. */
export function toolNameIndex(tools: readonly ToolDefinition[], maxLength: number): Map<string, ToolDefinition> {
  const index = new Map<string, ToolDefinition>();
  for (const tool of tools) index.set(wireToolName(tool.name, tool.namespace, maxLength), tool);
  return index;
}

/** A wire tool name resolved to the caller's tool: namespace and shortened names restored, and the tool's
 * kind recovered (custom tools travel as functions taking `{"input": string}`, mapping.md §4). */
export interface ResolvedTool {
  name: string;
  namespace: string | undefined;
  kind: ToolKind;
}

/** Wire names → the caller's tools for one request, for an upstream whose names are at most `maxLength`. */
export class ToolLookup {
  private index: Map<string, ToolDefinition> | undefined;

  constructor(
    private readonly tools: readonly ToolDefinition[],
    private readonly maxLength: number,
  ) {}

  resolve(wireName: string): ResolvedTool {
    // Built on first use: most responses carry no tool call at all.
    this.index ??= toolNameIndex(this.tools, this.maxLength);
    const def = this.index.get(wireName);
    if (!def) return { name: wireName, namespace: undefined, kind: 'function' };
    return { name: def.name, namespace: def.namespace, kind: def.kind };
  }
}
