// IR tools and tool choice → Gemini `tools[].functionDeclarations` and `toolConfig` (gemini.md §4, §5;
// mapping.md §16.3). Custom (free-text) tools become functions taking one string, as toward Chat.
import { wireToolName } from '../../ir/tool-names.js';
import type { IrRequest, ToolDefinition, Warning } from '../../ir/types.js';
import type { GeminiFunctionDeclaration, GeminiTool, GeminiToolConfig } from '../../protocols/gemini/request.js';
import { geminiSchema } from './json-schema-subset.js';
import { GEMINI_TOOL_NAME_MAX } from './tool-names.js';

export interface EncodedTools {
  tools: GeminiTool[] | undefined;
  toolConfig: GeminiToolConfig | undefined;
}

const wire = (def: ToolDefinition | undefined, name: string) => wireToolName(name, def?.namespace, GEMINI_TOOL_NAME_MAX);

export function encodeTools(req: IrRequest, warnings: Warning[]): EncodedTools {
  let defs: readonly ToolDefinition[] = req.tools;
  let toolConfig: GeminiToolConfig | undefined;
  const choice = req.toolChoice;
  if (choice) {
    switch (choice.type) {
      case 'auto':
        toolConfig = { functionCallingConfig: { mode: 'AUTO' } };
        break;
      case 'none':
        toolConfig = { functionCallingConfig: { mode: 'NONE' } };
        break;
      case 'required':
        toolConfig = { functionCallingConfig: { mode: 'ANY' } };
        break;
      case 'tool': {
        const def = defs.find((d) => d.name === choice.name);
        toolConfig = { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [wire(def, choice.name)] } };
        break;
      }
      case 'allowed':
        if (choice.mode === 'required') {
          const names = choice.names.map((n) => wire(defs.find((d) => d.name === n), n));
          toolConfig = { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: names } };
        } else {
          // `allowedFunctionNames` is only accepted with ANY: for `auto`, send only the allowed tools.
          defs = defs.filter((d) => choice.names.includes(d.name));
          toolConfig = { functionCallingConfig: { mode: 'AUTO' } };
        }
        break;
      default: {
        const never: never = choice;
        return never;
      }
    }
  }
  if (req.parallelToolCalls === false && defs.length > 0) {
    warnings.push({ field: 'parallel_tool_calls', message: 'Gemini cannot be told to make one call at a time; parallel_tool_calls=false was not sent' });
  }
  if (defs.length === 0) return { tools: undefined, toolConfig: undefined };
  return { tools: [{ functionDeclarations: defs.map((d) => declaration(d, warnings)) }], toolConfig };
}

function declaration(def: ToolDefinition, warnings: Warning[]): GeminiFunctionDeclaration {
  const decl: GeminiFunctionDeclaration = { name: wire(def, def.name) };
  const description = def.description;
  if (def.kind === 'custom') {
    decl.parametersJsonSchema = customInputSchema(def);
  } else if (def.inputSchema) {
    const { schema, dropped } = geminiSchema(def.inputSchema);
    if (dropped.length > 0) warnings.push({ field: 'tools', message: `tool ${def.name}: JSON Schema keywords Gemini does not accept were dropped: ${dropped.join(', ')}` });
    decl.parametersJsonSchema = schema;
  }
  if (description !== undefined) decl.description = description;
  return decl;
}

/** `{input: string}`, with the custom tool's grammar described, since Gemini cannot enforce it. */
function customInputSchema(def: ToolDefinition): Record<string, unknown> {
  let description = 'The raw input for this tool, as free text.';
  const f = def.format as { type?: unknown; definition?: unknown; syntax?: unknown; grammar?: { definition?: unknown; syntax?: unknown } } | undefined;
  const g = f && f.type === 'grammar' ? (f.grammar ?? f) : undefined;
  if (g && typeof g.definition === 'string') description += ` It must match this ${typeof g.syntax === 'string' ? g.syntax : 'formal'} grammar:\n${g.definition}`;
  return { type: 'object', properties: { input: { type: 'string', description } }, required: ['input'] };
}
