// Messages request body → IR request. Validation first (compiled TypeBox, 400 naming the field), then
// one pass over the top-level keys: mapped keys become IR fields, every other key is kept verbatim in
// `extras.messages` for a Messages upstream.
import type {
  IrRequest,
  OutputFormat,
  ReasoningEffort,
  ReasoningRequest,
  TextPart,
  ToolChoice,
  ToolDefinition,
  Turn,
  Warning,
} from '../../ir/types.js';
import type {
  CountTokensRequestBody,
  CustomToolParam,
  MessageParamBody,
  OutputConfigBody,
  ThinkingBody,
  ToolChoiceBody,
} from '../../protocols/anthropic-messages/request.js';
import { HTTPS_ONLY, type MediaUrlRule } from '../../ir/media-url.js';
import { assistantParts, systemParts, textPart, userParts } from './decode-content.js';
import { checkMediaUrls } from './media-urls.js';
import { validateCountTokensRequest, validateCreateRequest } from './request-validation.js';

/** `mediaUrls`: which `url` sources the door takes (ir/media-url.ts); https: and data: by default. */
export function decodeRequest(body: unknown, warnings: Warning[], mediaUrls: MediaUrlRule = HTTPS_ONLY): IrRequest {
  return toIr(validateCreateRequest(body), warnings, mediaUrls);
}

/** `POST /v1/messages/count_tokens`: the create body without the required `max_tokens`. */
export function decodeCountTokensRequest(body: unknown, warnings: Warning[], mediaUrls: MediaUrlRule = HTTPS_ONLY): IrRequest {
  return toIr(validateCountTokensRequest(body), warnings, mediaUrls);
}

function toIr(body: CountTokensRequestBody, warnings: Warning[], mediaUrls: MediaUrlRule): IrRequest {
  checkMediaUrls(body.messages, mediaUrls);
  const ir: IrRequest = {
    model: body.model,
    system: [],
    turns: [],
    tools: [],
    toolChoice: undefined,
    parallelToolCalls: undefined,
    maxOutputTokens: body.max_tokens,
    temperature: body.temperature,
    topP: body.top_p,
    topK: body.top_k,
    stopSequences: body.stop_sequences ?? [],
    reasoning: undefined,
    outputFormat: undefined,
    user: undefined,
    metadata: undefined,
    stream: body.stream === true,
    sourceProtocol: 'messages',
    extras: {},
  };
  // `system` first so hoisted `role: "system"` messages land after it, in order.
  if (body.system !== undefined) {
    if (typeof body.system === 'string') {
      if (body.system !== '') ir.system.push({ type: 'text', text: body.system });
    } else {
      for (const block of body.system) ir.system.push(textPart(block, warnings));
    }
  }
  ir.turns = decodeMessages(body.messages, ir.system, warnings);
  if (body.tools !== undefined) ir.tools = decodeTools(body.tools, warnings);
  if (body.tool_choice !== undefined) decodeToolChoice(body.tool_choice, ir);
  if (body.thinking !== undefined) ir.reasoning = decodeThinking(body.thinking, warnings);
  if (body.output_config !== undefined) decodeOutputConfig(body.output_config, ir, warnings);
  if (body.metadata !== undefined) {
    const { user_id, ...rest } = body.metadata;
    if (user_id != null) ir.user = user_id;
    for (const key in rest) warnings.push({ field: 'metadata', message: `metadata.${key} is not translated; dropped` });
  }
  let extras: Record<string, unknown> | undefined;
  for (const key in body) {
    if (MAPPED.has(key)) continue;
    extras ??= {};
    extras[key] = (body as Record<string, unknown>)[key];
  }
  if (extras) ir.extras.messages = extras;
  return ir;
}

/** Top-level keys that map onto IR fields; all others go to `extras.messages`. */
const MAPPED = new Set([
  'model',
  'max_tokens',
  'messages',
  'system',
  'metadata',
  'stop_sequences',
  'stream',
  'temperature',
  'top_p',
  'top_k',
  'tools',
  'tool_choice',
  'thinking',
  'output_config',
]);

function decodeMessages(messages: readonly MessageParamBody[], system: TextPart[], warnings: Warning[]): Turn[] {
  const turns: Turn[] = [];
  for (const m of messages) {
    const content = m.content;
    if (m.role === 'system') {
      if (typeof content === 'string') {
        if (content !== '') system.push({ type: 'text', text: content });
      }
      else systemParts(content, system, warnings);
    } else if (m.role === 'user') {
      turns.push({ role: 'user', parts: typeof content === 'string' ? [{ type: 'text', text: content }] : userParts(content, warnings) });
    } else {
      turns.push({
        role: 'assistant',
        parts: typeof content === 'string' ? [{ type: 'text', text: content }] : assistantParts(content, warnings),
      });
    }
  }
  return turns;
}

function decodeTools(tools: readonly { type?: string | null; name?: string }[], warnings: Warning[]): ToolDefinition[] {
  const out: ToolDefinition[] = [];
  for (let i = 0; i < tools.length; i++) {
    const t = tools[i]!;
    if (t.type != null && t.type !== 'custom') {
      warnings.push({
        field: `tools.${i}`,
        message: `Anthropic-defined tool ${t.type}${t.name ? ` (${t.name})` : ''} cannot be translated; dropped`,
      });
      continue;
    }
    const c = t as CustomToolParam;
    const def: ToolDefinition = { name: c.name, inputSchema: c.input_schema, kind: 'function' };
    if (c.description !== undefined) def.description = c.description;
    if (c.strict !== undefined) def.strict = c.strict;
    if (c.cache_control != null) def.cacheControl = c.cache_control;
    out.push(def);
  }
  return out;
}

function decodeToolChoice(choice: ToolChoiceBody, ir: IrRequest): void {
  let mapped: ToolChoice;
  switch (choice.type) {
    case 'auto':
      mapped = { type: 'auto' };
      break;
    case 'any':
      mapped = { type: 'required' };
      break;
    case 'tool':
      mapped = { type: 'tool', name: choice.name };
      break;
    case 'none':
      mapped = { type: 'none' };
      break;
    default: {
      const never: never = choice;
      return never;
    }
  }
  ir.toolChoice = mapped;
  if (choice.type !== 'none' && choice.disable_parallel_tool_use === true) ir.parallelToolCalls = false;
}

function decodeThinking(thinking: ThinkingBody, warnings: Warning[]): ReasoningRequest | undefined {
  // The "other" member types `type` as string; narrow on the known tags by hand.
  const known = thinking as Extract<ThinkingBody, { type: 'enabled' | 'adaptive' | 'disabled' }>;
  switch (known.type) {
    case 'enabled': {
      const r: ReasoningRequest = { mode: 'enabled', budgetTokens: known.budget_tokens };
      if (known.display != null) r.display = known.display;
      return r;
    }
    case 'adaptive': {
      const r: ReasoningRequest = { mode: 'adaptive' };
      if (known.display != null) r.display = known.display;
      return r;
    }
    case 'disabled':
      return { mode: 'disabled' };
    default:
      if (thinking.type === 'between_tools') {
        warnings.push({ field: 'thinking', message: 'thinking.type between_tools is translated as adaptive' });
        return { mode: 'adaptive' };
      }
      warnings.push({ field: 'thinking', message: `thinking.type ${thinking.type} is not translated; dropped` });
      return undefined;
  }
}

const EFFORTS = new Set<string>(['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max']);

function decodeOutputConfig(config: OutputConfigBody, ir: IrRequest, warnings: Warning[]): void {
  for (const key in config) {
    if (key !== 'effort' && key !== 'format') {
      warnings.push({ field: 'output_config', message: `output_config.${key} is not translated; dropped` });
    }
  }
  const effort = config.effort;
  if (effort != null) {
    if (EFFORTS.has(effort)) (ir.reasoning ??= {}).effort = effort as ReasoningEffort;
    else warnings.push({ field: 'output_config.effort', message: `effort ${effort} is not translated; dropped` });
  }
  const format = config.format;
  if (format != null) {
    if (format.type === 'json_schema') {
      const f: OutputFormat = { type: 'json_schema', schema: (format as { schema: Record<string, unknown> }).schema };
      ir.outputFormat = f;
    } else {
      warnings.push({ field: 'output_config.format', message: `output format ${format.type} is not translated; dropped` });
    }
  }
}
