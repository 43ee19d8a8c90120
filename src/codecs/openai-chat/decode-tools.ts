// Chat `tools` / `tool_choice`, and the legacy `functions` / `function_call`, → IR (mapping.md §4, §5).
// `strict` defaults to false on this protocol (the opposite of Responses), so it is set only when sent.
import type { ToolChoice, ToolDefinition } from '../../ir/types.js';
import type { LegacyFunctionBody, ToolChoiceParamBody, ToolParamBody } from '../../protocols/openai-chat/door-request.js';

export function decodeTools(tools: readonly ToolParamBody[]): ToolDefinition[] {
  return tools.map((t) => {
    if (t.type === 'custom') {
      const def: ToolDefinition = { name: t.custom.name, kind: 'custom' };
      if (t.custom.description != null) def.description = t.custom.description;
      if (t.custom.format != null) def.format = t.custom.format;
      return def;
    }
    const f = t.function;
    const def: ToolDefinition = { name: f.name, kind: 'function', inputSchema: (f.parameters as Record<string, unknown> | null | undefined) ?? { type: 'object', properties: {} } };
    if (f.description != null) def.description = f.description;
    if (f.strict != null) def.strict = f.strict;
    return def;
  });
}

export function decodeLegacyFunctions(functions: readonly LegacyFunctionBody[]): ToolDefinition[] {
  return functions.map((f) => {
    const def: ToolDefinition = { name: f.name, kind: 'function', inputSchema: (f.parameters as Record<string, unknown> | null | undefined) ?? { type: 'object', properties: {} } };
    if (f.description != null) def.description = f.description;
    return def;
  });
}

export function decodeToolChoice(choice: ToolChoiceParamBody): ToolChoice {
  if (typeof choice === 'string') return { type: choice };
  switch (choice.type) {
    case 'function':
      return { type: 'tool', name: choice.function.name };
    case 'custom':
      return { type: 'tool', name: choice.custom.name };
    case 'allowed_tools':
      return {
        type: 'allowed',
        mode: choice.allowed_tools.mode,
        names: choice.allowed_tools.tools.map((t) => (t.type === 'function' ? t.function.name : t.custom.name)),
      };
    default: {
      const never: never = choice;
      return never;
    }
  }
}

export function decodeLegacyFunctionCall(choice: 'none' | 'auto' | { name: string }): ToolChoice {
  return typeof choice === 'string' ? { type: choice } : { type: 'tool', name: choice.name };
}
