// Responses create body → IR request. Validation first (compiled TypeBox, 400 naming the field), then
// one pass over the top-level keys: mapped keys become IR fields; every other key (store, include,
// previous_response_id, prompt_cache_key, service_tier, truncation, client_metadata, …) is kept
// verbatim in `extras.responses`, which same-protocol drivers forward and the encoders echo. The
// caller's `instructions`, `user`, and the unmapped keys of `text` / `reasoning` are kept there too,
// under their own names, for the echo and for a Responses upstream.
import { GatewayError } from '../../errors.js';
import { HTTPS_ONLY, type MediaUrlRule } from '../../ir/media-url.js';
import type { IrRequest, OutputFormat, ReasoningRequest, TextPart, Warning } from '../../ir/types.js';
import type { ReasoningParamBody, TextFormatBody, TextParamBody } from '../../protocols/openai-responses/request.js';
import { decodeInput } from './decode-input.js';
import { decodeToolChoice, decodeTools } from './decode-tools.js';
import { validateRequest } from './request-validation.js';

/** Top-level keys decoded into IR fields only; every other key goes to `extras.responses`. */
const MAPPED = new Set([
  'model',
  'input',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'max_output_tokens',
  'temperature',
  'top_p',
  'reasoning',
  'text',
  'metadata',
  'safety_identifier',
  'stream',
]);

/** `mediaUrls`: which `image_url` / `file_url` addresses the door takes (ir/media-url.ts). */
export function decodeRequest(body: unknown, warnings: Warning[], mediaUrls: MediaUrlRule = HTTPS_ONLY): IrRequest {
  const b = validateRequest(body);
  const ir: IrRequest = {
    model: b.model,
    system: [],
    turns: [],
    tools: [],
    toolChoice: undefined,
    parallelToolCalls: b.parallel_tool_calls ?? undefined,
    maxOutputTokens: b.max_output_tokens ?? undefined,
    temperature: b.temperature ?? undefined,
    topP: b.top_p ?? undefined,
    topK: undefined,
    stopSequences: [],
    reasoning: undefined,
    outputFormat: undefined,
    user: b.safety_identifier ?? b.user ?? undefined,
    metadata: b.metadata ?? undefined,
    stream: b.stream === true,
    sourceProtocol: 'responses',
    extras: {},
  };
  // `instructions` first so hoisted system/developer items land after it, in order.
  if (b.instructions != null && b.instructions !== '') ir.system.push({ type: 'text', text: b.instructions });
  if (b.input !== undefined) ir.turns = decodeInput(b.input, ir.system, warnings, mediaUrls);
  else if (b.previous_response_id == null && (b as Record<string, unknown>).conversation == null && (b as Record<string, unknown>).prompt == null) {
    throw new GatewayError('invalid_request', "Missing required parameter: 'input'.", {
      param: 'input',
      code: 'missing_required_parameter',
    });
  }
  if (b.tools != null) ir.tools = decodeTools(b.tools, warnings);
  if (b.tool_choice != null) ir.toolChoice = decodeToolChoice(b.tool_choice, warnings);

  const extras: Record<string, unknown> = {};
  let hasExtras = false;
  for (const key in b) {
    if (MAPPED.has(key)) continue;
    extras[key] = (b as Record<string, unknown>)[key];
    hasExtras = true;
  }
  if (b.reasoning != null) {
    ir.reasoning = decodeReasoning(b.reasoning);
    const rest = unmapped(b.reasoning, REASONING_KEYS);
    if (rest !== undefined) {
      extras.reasoning = rest;
      hasExtras = true;
    }
  }
  if (b.text != null) {
    if (b.text.format != null) ir.outputFormat = decodeFormat(b.text.format);
    const rest = unmapped(b.text, TEXT_KEYS);
    if (rest !== undefined) {
      extras.text = rest;
      hasExtras = true;
    }
  }
  if (hasExtras) ir.extras.responses = extras;
  return ir;
}

/**
 * The system/developer messages of a request's `input` (hoisted into `ir.system` after `instructions`):
 * what a continuation inherits, unlike `instructions`, which OpenAI never carries over.
 */
export function inputSystemParts(ir: IrRequest): TextPart[] {
  const instructions = ir.extras.responses?.instructions;
  return typeof instructions === 'string' && instructions !== '' ? ir.system.slice(1) : ir.system;
}

/** `ir` continuing a conversation: its `instructions` first, then the earlier system/developer messages, then its own. */
export function withEarlierSystem(ir: IrRequest, earlier: readonly TextPart[]): TextPart[] {
  if (earlier.length === 0) return ir.system;
  const own = inputSystemParts(ir);
  return [...ir.system.slice(0, ir.system.length - own.length), ...earlier, ...own];
}

const REASONING_KEYS = new Set(['effort', 'summary', 'generate_summary']);
const TEXT_KEYS = new Set(['format']);

/** The keys of a nested object the IR does not model (e.g. text.verbosity, reasoning.context). */
function unmapped(obj: ReasoningParamBody | TextParamBody, mapped: ReadonlySet<string>): Record<string, unknown> | undefined {
  let rest: Record<string, unknown> | undefined;
  for (const key in obj) {
    if (mapped.has(key)) continue;
    (rest ??= {})[key] = (obj as Record<string, unknown>)[key];
  }
  return rest;
}

function decodeReasoning(r: ReasoningParamBody): ReasoningRequest | undefined {
  const summary = r.summary ?? r.generate_summary ?? undefined;
  if (r.effort == null && summary === undefined) return undefined;
  const out: ReasoningRequest = {};
  if (r.effort != null) out.effort = r.effort;
  if (summary !== undefined) out.summary = summary;
  return out;
}

function decodeFormat(f: TextFormatBody): OutputFormat {
  switch (f.type) {
    case 'text':
    case 'json_object':
      return { type: f.type };
    case 'json_schema': {
      const out: OutputFormat = { type: 'json_schema', name: f.name, schema: f.schema as Record<string, unknown> };
      if (f.description != null) out.description = f.description;
      if (f.strict != null) out.strict = f.strict;
      return out;
    }
    default: {
      const never: never = f;
      return never;
    }
  }
}
