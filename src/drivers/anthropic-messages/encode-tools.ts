// IR tools and tool choice → Messages `tools` / `tool_choice` (mapping.md §4, §5, messages.md §6, §7).
// Namespaced tools are flattened to one wire name; custom (free-text) tools become functions taking
// `{"input": string}`; `allowed_tools` becomes the subset of tools it allows.
import { invalidRequest } from '../../errors.js';
import { wireToolName } from '../../ir/tool-names.js';
import type { IrRequest, ToolDefinition } from '../../ir/types.js';
import type { UpstreamTool, UpstreamToolChoice } from '../../protocols/anthropic-messages/upstream-request.js';
import { ANTHROPIC_TOOL_NAME_MAX } from './tool-lookup.js';

export interface EncodedTools {
  tools: UpstreamTool[];
  toolChoice: UpstreamToolChoice | undefined;
  /** The choice forces a tool call (`any` / `tool`), which manual thinking does not allow. */
  forced: boolean;
}

export function encodeTools(req: IrRequest): EncodedTools | undefined {
  const defs = req.tools;
  const choice = req.toolChoice;
  const allowed = choice?.type === 'allowed' ? new Set(choice.names) : undefined;
  const tools: UpstreamTool[] = [];
  for (let i = 0; i < defs.length; i++) {
    const def = defs[i]!;
    if (allowed && !allowed.has(def.name)) continue;
    tools.push(encodeTool(def, i));
  }
  if (tools.length === 0) return undefined;
  let toolChoice: UpstreamToolChoice | undefined;
  if (choice) {
    switch (choice.type) {
      case 'auto':
        toolChoice = { type: 'auto' };
        break;
      case 'required':
        toolChoice = { type: 'any' };
        break;
      case 'none':
        toolChoice = { type: 'none' };
        break;
      case 'tool': {
        const def = defs.find((d) => d.name === choice.name);
        toolChoice = { type: 'tool', name: wireToolName(choice.name, def?.namespace, ANTHROPIC_TOOL_NAME_MAX) };
        break;
      }
      case 'allowed':
        toolChoice = { type: choice.mode === 'required' ? 'any' : 'auto' };
        break;
      default: {
        const never: never = choice;
        return never;
      }
    }
  }
  if (req.parallelToolCalls === false) {
    toolChoice ??= { type: 'auto' };
    // `none` cannot take the flag, and with no call allowed there is nothing to serialize.
    if (toolChoice.type !== 'none') toolChoice.disable_parallel_tool_use = true;
  }
  const forced = toolChoice !== undefined && (toolChoice.type === 'any' || toolChoice.type === 'tool');
  return { tools, toolChoice, forced };
}

function encodeTool(def: ToolDefinition, i: number): UpstreamTool {
  const name = wireToolName(def.name, def.namespace, ANTHROPIC_TOOL_NAME_MAX);
  if (def.kind === 'custom') return customTool(def, name);
  const schema = inputSchema(def.inputSchema, i);
  const tool: UpstreamTool = def.description === undefined ? { name, input_schema: schema } : { name, description: def.description, input_schema: schema };
  if (def.strict === true) tool.strict = true;
  if (def.cacheControl != null) tool.cache_control = def.cacheControl;
  return tool;
}

/** Anthropic requires an object schema at the root and rejects root combinators (messages.md §6). */
function inputSchema(schema: Record<string, unknown> | undefined, i: number): Record<string, unknown> {
  if (schema === undefined || Object.keys(schema).length === 0) return { type: 'object', properties: {} };
  if (schema.anyOf !== undefined || schema.oneOf !== undefined || schema.allOf !== undefined) {
    throw invalidRequest(`tool ${i}: a root anyOf/oneOf/allOf schema cannot be sent to an Anthropic upstream; wrap it in an object property`, `tools[${i}]`);
  }
  // A schema that only forgot the root `type` still describes an object.
  if (schema.type === undefined) return { type: 'object', ...schema };
  if (schema.type !== 'object') {
    throw invalidRequest(`tool ${i}: the input schema root must be of type object for an Anthropic upstream`, `tools[${i}]`);
  }
  return schema;
}

/** A free-text tool as a function taking one string; its grammar (if any) can only be described. */
function customTool(def: ToolDefinition, name: string): UpstreamTool {
  let description = def.description ?? '';
  const grammar = grammarOf(def.format);
  if (grammar) description += `${description ? '\n\n' : ''}The input must match this ${grammar.syntax} grammar:\n${grammar.definition}`;
  const schema = {
    type: 'object',
    properties: { input: { type: 'string', description: 'The raw input for this tool, as free text.' } },
    required: ['input'],
  };
  const tool: UpstreamTool = description ? { name, description, input_schema: schema } : { name, input_schema: schema };
  if (def.cacheControl != null) tool.cache_control = def.cacheControl;
  return tool;
}

/** Responses `{type:"grammar", syntax, definition}` (or the nested `{grammar:{…}}` variant). */
function grammarOf(format: unknown): { syntax: string; definition: string } | undefined {
  if (!format || typeof format !== 'object') return undefined;
  const f = format as { type?: unknown; grammar?: unknown };
  if (f.type !== 'grammar') return undefined;
  const g = (f.grammar && typeof f.grammar === 'object' ? f.grammar : f) as { syntax?: unknown; definition?: unknown };
  if (typeof g.definition !== 'string') return undefined;
  return { syntax: typeof g.syntax === 'string' ? g.syntax : 'formal', definition: g.definition };
}
