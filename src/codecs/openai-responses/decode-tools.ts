// Responses `tools` and `tool_choice` → IR (mapping.md §4, §5). Function and custom tools translate;
// a `namespace` group is flattened into its members (each keeps the namespace); built-in tools only
// work on the pass-through lane, so translation drops them with a warning.
import type { ToolChoice, ToolDefinition, Warning } from '../../ir/types.js';
import type {
  AllowedToolsChoiceBody,
  CustomToolBody,
  FunctionToolBody,
  NamedToolChoiceBody,
  NamespaceToolBody,
  ToolBody,
  ToolChoiceBody,
} from '../../protocols/openai-responses/tools.js';

/** Built-in tool types named in warnings; anything else is reported as `other` (bounded field names). */
const BUILT_IN_TOOLS = new Set([
  'web_search',
  'web_search_preview',
  'web_search_preview_2025_03_11',
  'file_search',
  'computer',
  'computer_use_preview',
  'code_interpreter',
  'image_generation',
  'mcp',
  'local_shell',
  'shell',
  'apply_patch',
  'tool_search',
  'programmatic_tool_calling',
]);

function builtInField(type: string): string {
  return 'tools.' + (BUILT_IN_TOOLS.has(type) ? type : 'other');
}

function functionTool(t: FunctionToolBody, namespace?: string): ToolDefinition {
  const def: ToolDefinition = { name: t.name, kind: 'function' };
  if (t.description != null) def.description = t.description;
  const params = t.parameters;
  if (params != null && typeof params === 'object' && !Array.isArray(params)) def.inputSchema = params as Record<string, unknown>;
  if (t.strict != null) def.strict = t.strict;
  if (namespace !== undefined) def.namespace = namespace;
  return def;
}

function customTool(t: CustomToolBody, namespace?: string): ToolDefinition {
  const def: ToolDefinition = { name: t.name, kind: 'custom' };
  if (t.description != null) def.description = t.description;
  if (t.format != null) def.format = t.format;
  if (namespace !== undefined) def.namespace = namespace;
  return def;
}

export function decodeTools(tools: readonly ToolBody[], warnings: Warning[]): ToolDefinition[] {
  const out: ToolDefinition[] = [];
  for (const tool of tools) {
    const t = tool as FunctionToolBody | CustomToolBody | NamespaceToolBody;
    switch (t.type) {
      case 'function':
        out.push(functionTool(t));
        break;
      case 'custom':
        out.push(customTool(t));
        break;
      case 'namespace':
        for (const member of t.tools) {
          const m = member as FunctionToolBody | CustomToolBody;
          if (m.type === 'function') out.push(functionTool(m, t.name));
          else if (m.type === 'custom') out.push(customTool(m, t.name));
          else warnings.push({ field: builtInField(member.type), message: `tool type ${member.type} in namespace ${t.name} cannot be translated; dropped` });
        }
        break;
      default:
        warnings.push({ field: builtInField(tool.type), message: `built-in tool ${tool.type} only works with an OpenAI Responses upstream; dropped` });
    }
  }
  return out;
}

export function decodeToolChoice(choice: ToolChoiceBody, warnings: Warning[]): ToolChoice | undefined {
  if (typeof choice === 'string') return { type: choice };
  const c = choice as NamedToolChoiceBody | AllowedToolsChoiceBody;
  switch (c.type) {
    case 'function':
    case 'custom':
      return { type: 'tool', name: c.name };
    case 'allowed_tools': {
      const names: string[] = [];
      for (const t of c.tools) {
        if ((t.type === 'function' || t.type === 'custom') && typeof t.name === 'string') names.push(t.name);
        else warnings.push({ field: 'tool_choice', message: `allowed tool of type ${t.type} cannot be translated; dropped` });
      }
      return { type: 'allowed', mode: c.mode, names };
    }
    default:
      warnings.push({ field: 'tool_choice', message: `tool_choice type ${choice.type} (a built-in tool) cannot be translated; dropped` });
      return undefined;
  }
}
