// Gemini `tools` and `toolConfig` → IR tools and tool choice (gemini.md §4, §5). A declaration's
// `parametersJsonSchema` is JSON Schema already; the older `parameters` (OpenAPI 3.0 Schema, upper-case
// types, `nullable`) is turned into JSON Schema. Google's own tools (`googleSearch`, `codeExecution`,
// `urlContext`) have no translation here: they mark the request as Gemini-only (refused elsewhere).
import type { ToolChoice, ToolDefinition, Warning } from '../../ir/types.js';
import type { CallerToolBody, CallerToolConfigBody } from '../../protocols/gemini/caller-request.js';
import { fieldError } from './request-validation.js';

const NAME = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}$/;
const GOOGLE_TOOLS = ['googleSearch', 'googleSearchRetrieval', 'codeExecution', 'urlContext'] as const;

export interface DecodedTools {
  tools: ToolDefinition[];
  /** Google tools asked for, by field (`tools[0].googleSearch`). */
  googleOnly: string[];
}

export function decodeTools(tools: CallerToolBody[] | undefined): DecodedTools {
  const out: DecodedTools = { tools: [], googleOnly: [] };
  if (!tools) return out;
  const seen = new Set<string>();
  tools.forEach((tool, t) => {
    for (const g of GOOGLE_TOOLS) if (tool[g] !== undefined) out.googleOnly.push(`tools[${t}].${g}`);
    (tool.functionDeclarations ?? []).forEach((fd, k) => {
      const at = `tools[${t}].functionDeclarations[${k}]`;
      if (!NAME.test(fd.name)) throw fieldError(`${at}.name`, 'must start with a letter or underscore and hold only letters, digits, _ . : -');
      if (seen.has(fd.name)) throw fieldError(`${at}.name`, `duplicate function name "${fd.name}"`);
      seen.add(fd.name);
      if (fd.parameters !== undefined && fd.parametersJsonSchema !== undefined) throw fieldError(at, 'parameters and parametersJsonSchema are exclusive');
      const schema = fd.parametersJsonSchema ?? (fd.parameters !== undefined ? openApiToJsonSchema(fd.parameters) : { type: 'object', properties: {} });
      out.tools.push({ name: fd.name, description: fd.description, inputSchema: schema as Record<string, unknown>, kind: 'function' });
    });
  });
  return out;
}

export function decodeToolConfig(config: CallerToolConfigBody | undefined, tools: ToolDefinition[], warnings: Warning[]): ToolChoice | undefined {
  const fc = config?.functionCallingConfig;
  if (!fc) return undefined;
  const names = fc.allowedFunctionNames;
  if (names !== undefined) {
    names.forEach((n, k) => {
      if (!tools.some((t) => t.name === n)) throw fieldError(`toolConfig.functionCallingConfig.allowedFunctionNames[${k}]`, `no function declaration named "${n.slice(0, 64)}"`);
    });
  }
  switch (fc.mode ?? 'AUTO') {
    case 'NONE':
      return { type: 'none' };
    case 'ANY':
      if (names === undefined || names.length === 0) return { type: 'required' };
      return names.length === 1 ? { type: 'tool', name: names[0]! } : { type: 'allowed', mode: 'required', names };
    case 'VALIDATED':
      // Gemini's schema-validated calling; elsewhere the schema is a hint the upstream follows.
      warnings.push({ field: 'toolConfig', message: 'functionCallingConfig.mode VALIDATED is sent as AUTO: the upstream does not validate calls against the schema' });
      return names === undefined || names.length === 0 ? { type: 'auto' } : { type: 'allowed', mode: 'auto', names };
    case 'AUTO':
    case 'MODE_UNSPECIFIED':
      return names === undefined || names.length === 0 ? { type: 'auto' } : { type: 'allowed', mode: 'auto', names };
    default:
      return { type: 'auto' };
  }
}

/** OpenAPI 3.0 Schema (Gemini's `Schema`: `type: "OBJECT"`, `nullable`) → JSON Schema. Keys it does not
 * know are kept as they are (they are JSON Schema keywords too: `description`, `enum`, `required`…). */
export function openApiToJsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(openApiToJsonSchema);
  if (typeof schema !== 'object' || schema === null) return schema;
  const src = schema as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key in src) {
    const v = src[key];
    switch (key) {
      case 'type':
        out.type = typeof v === 'string' ? v.toLowerCase() : v;
        break;
      case 'nullable':
      case 'propertyOrdering':
        break;
      case 'properties': {
        const props: Record<string, unknown> = {};
        if (v && typeof v === 'object') for (const p in v as Record<string, unknown>) props[p] = openApiToJsonSchema((v as Record<string, unknown>)[p]);
        out.properties = props;
        break;
      }
      case 'items':
      case 'anyOf':
        out[key] = openApiToJsonSchema(v);
        break;
      default:
        out[key] = v;
    }
  }
  if (src.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  return out;
}
