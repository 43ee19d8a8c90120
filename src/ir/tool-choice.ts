// IR tool choice → the OpenAI Responses `tool_choice` value, written once for both sides that render
// it: the Responses codec echoes it in the response object, the Responses driver sends it upstream
// (with its wire tool names). A named tool's `type` follows its definition (function or custom).
import type { ToolChoice, ToolDefinition } from './types.js';

export type ResponsesToolChoice =
  | 'auto'
  | 'none'
  | 'required'
  | { type: 'function' | 'custom'; name: string }
  | { type: 'allowed_tools'; mode: 'auto' | 'required'; tools: { type: 'function' | 'custom'; name: string }[] };

const asIs = (name: string): string => name;

export function responsesToolChoice(choice: ToolChoice, tools: readonly ToolDefinition[], wireName: (name: string) => string = asIs): ResponsesToolChoice {
  switch (choice.type) {
    case 'auto':
    case 'none':
    case 'required':
      return choice.type;
    case 'tool':
      return { type: kindOf(choice.name, tools), name: wireName(choice.name) };
    case 'allowed':
      return { type: 'allowed_tools', mode: choice.mode, tools: choice.names.map((name) => ({ type: kindOf(name, tools), name: wireName(name) })) };
    default: {
      const never: never = choice;
      return never;
    }
  }
}

function kindOf(name: string, tools: readonly ToolDefinition[]): 'function' | 'custom' {
  for (const tool of tools) if (tool.name === name) return tool.kind;
  return 'function';
}
