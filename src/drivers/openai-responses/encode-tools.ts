// IR tool definitions and tool choice → Responses `tools` / `tool_choice` (mapping.md §4, §5).
import { responsesToolChoice } from '../../ir/tool-choice.js';
import type { ToolChoice, ToolDefinition } from '../../ir/types.js';
import type {
  CustomToolParam,
  FunctionToolParam,
  NamespaceToolParam,
  ToolChoiceParam,
  ToolParam,
} from '../../protocols/openai-responses/upstream-request.js';
import { wireName } from './tool-names.js';

function toolParam(tool: ToolDefinition): FunctionToolParam | CustomToolParam {
  if (tool.kind === 'custom') {
    const p: CustomToolParam = { type: 'custom', name: wireName(tool.name) };
    if (tool.description !== undefined) p.description = tool.description;
    if (tool.format !== undefined && tool.format !== null) p.format = tool.format;
    return p;
  }
  return {
    type: 'function',
    name: wireName(tool.name),
    description: tool.description ?? null,
    parameters: tool.inputSchema ?? { type: 'object', properties: {} },
    strict: tool.strict ?? false,
  };
}

/** Tools in caller order; namespaced tools gathered into one `namespace` group per namespace, placed
 * where that namespace first appears. */
export function encodeTools(tools: readonly ToolDefinition[]): ToolParam[] {
  const out: ToolParam[] = [];
  let groups: Map<string, NamespaceToolParam> | undefined;
  for (const tool of tools) {
    const ns = tool.namespace;
    if (ns === undefined) {
      out.push(toolParam(tool));
      continue;
    }
    groups ??= new Map();
    let group = groups.get(ns);
    if (group === undefined) {
      // The IR keeps no namespace description; the SDK requires the key.
      group = { type: 'namespace', name: ns, description: '', tools: [] };
      groups.set(ns, group);
      out.push(group);
    }
    group.tools.push(toolParam(tool));
  }
  return out;
}

export function encodeToolChoice(choice: ToolChoice, tools: readonly ToolDefinition[]): ToolChoiceParam {
  return responsesToolChoice(choice, tools, wireName);
}
