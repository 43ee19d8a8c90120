// IR tools and tool choice → Chat `tools`, `tool_choice`, `parallel_tool_calls` (mapping.md §4, §5).
// Custom (free-text) tools become functions taking one string, since few chat servers know `custom`.
import { wireToolName } from '../../ir/tool-names.js';
import type { IrRequest, ToolDefinition } from '../../ir/types.js';
import type { ChatFunctionTool, ChatToolChoice } from '../../protocols/openai-chat/request.js';
import { CHAT_TOOL_NAME_MAX } from './tool-lookup.js';

export interface EncodedTools {
  tools: ChatFunctionTool[];
  toolChoice: ChatToolChoice | undefined;
  /** Only ever `false`: servers reject the field without tools, and `true` is the default. */
  parallelToolCalls: false | undefined;
}

export function encodeTools(req: IrRequest): EncodedTools | undefined {
  let defs: readonly ToolDefinition[] = req.tools;
  let toolChoice: ChatToolChoice | undefined;
  const choice = req.toolChoice;
  if (choice) {
    switch (choice.type) {
      case 'auto':
      case 'none':
      case 'required':
        toolChoice = choice.type;
        break;
      case 'tool': {
        const def = defs.find((d) => d.name === choice.name);
        toolChoice = { type: 'function', function: { name: wireToolName(choice.name, def?.namespace, CHAT_TOOL_NAME_MAX) } };
        break;
      }
      case 'allowed':
        // Chat servers rarely know `allowed_tools`: send only the allowed ones instead.
        defs = defs.filter((d) => choice.names.includes(d.name));
        toolChoice = choice.mode;
        break;
      default: {
        const never: never = choice;
        return never;
      }
    }
  }
  if (defs.length === 0) return undefined;
  return {
    tools: defs.map(encodeTool),
    toolChoice,
    parallelToolCalls: req.parallelToolCalls === false ? false : undefined,
  };
}

function encodeTool(def: ToolDefinition): ChatFunctionTool {
  const fn: ChatFunctionTool['function'] = {
    name: wireToolName(def.name, def.namespace, CHAT_TOOL_NAME_MAX),
    parameters: def.kind === 'custom' ? customInputSchema(def) : (def.inputSchema ?? { type: 'object', properties: {} }),
  };
  if (def.description !== undefined) fn.description = def.description;
  // Chat defaults to non-strict; strict schemas must meet OpenAI's rules, so only when asked.
  if (def.strict === true && def.kind !== 'custom') fn.strict = true;
  return { type: 'function', function: fn };
}

/** `{input: string}`, with the custom tool's grammar (if any) described, since it cannot be enforced. */
function customInputSchema(def: ToolDefinition): Record<string, unknown> {
  let description = 'The raw input for this tool, as free text.';
  const grammar = grammarOf(def.format);
  if (grammar) description += ` It must match this ${grammar.syntax} grammar:\n${grammar.definition}`;
  return {
    type: 'object',
    properties: { input: { type: 'string', description } },
    required: ['input'],
  };
}

/** Responses `{type:"grammar", syntax, definition}` or Chat `{type:"grammar", grammar:{syntax, definition}}`. */
function grammarOf(format: unknown): { syntax: string; definition: string } | undefined {
  if (!format || typeof format !== 'object') return undefined;
  const f = format as { type?: unknown; grammar?: unknown; syntax?: unknown; definition?: unknown };
  if (f.type !== 'grammar') return undefined;
  const g = (f.grammar && typeof f.grammar === 'object' ? f.grammar : f) as { syntax?: unknown; definition?: unknown };
  if (typeof g.definition !== 'string') return undefined;
  return { syntax: typeof g.syntax === 'string' ? g.syntax : 'formal', definition: g.definition };
}
