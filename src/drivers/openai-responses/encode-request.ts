// IR request → Responses create body (mapping.md §1–§12). Always stateless toward the upstream:
// store:false, with encrypted reasoning included so the opaque state rides back through the caller.
import type { IrRequest, OutputFormat, Warning } from '../../ir/types.js';
import type { ResponsesCreateBody, TextFormatParam } from '../../protocols/openai-responses/upstream-request.js';
import { fitIdentifier, OPENAI_IDENTIFIER_MAX } from '../fit-identifier.js';
import { openaiHeaders } from '../openai-headers.js';
import type { DriverTarget, EncodedRequest } from '../types.js';
import { encodeInput } from './encode-input.js';
import { encodeReasoning } from './encode-reasoning.js';
import { encodeToolChoice, encodeTools } from './encode-tools.js';
import { RESPONSES_PATH } from './paths.js';
import { warnSeedAndPenalties } from '../unsampled-fields.js';

const ENCRYPTED_REASONING = 'reasoning.encrypted_content';
/** API minimum for max_output_tokens. */
export const MIN_OUTPUT_TOKENS = 16;

/** Same-family caller fields the driver owns (or must not forward to a stateless upstream). */
const OWN_KEYS = new Set(['store', 'include', 'previous_response_id', 'stream', 'stream_options', 'background']);

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function textFormat(f: OutputFormat): TextFormatParam {
  switch (f.type) {
    case 'text':
    case 'json_object':
      return { type: f.type };
    case 'json_schema': {
      const out: TextFormatParam = { type: 'json_schema', name: f.name ?? 'output', schema: f.schema, strict: f.strict ?? false };
      if (f.description !== undefined) out.description = f.description;
      return out;
    }
    default: {
      const never: never = f;
      return never;
    }
  }
}

/** A Responses caller's own fields (prompt_cache_key, service_tier, truncation, text.verbosity,
 * reasoning.context, …), forwarded verbatim wherever the IR did not already decide the value. */
function applyResponsesExtras(body: ResponsesCreateBody, extras: Record<string, unknown>, stream: boolean, warnings: Warning[]): void {
  for (const key in extras) {
    const value = extras[key];
    if (OWN_KEYS.has(key)) {
      if (key === 'include' && Array.isArray(value)) {
        for (const entry of value) if (typeof entry === 'string' && !body.include.includes(entry)) body.include.push(entry);
      } else if (key === 'stream_options' && stream && value != null) {
        body.stream_options = value;
      } else if (key === 'background' && value === true) {
        warnings.push({ field: 'background', message: 'background mode needs a stored response; the gateway calls the upstream statelessly' });
      }
      // store, previous_response_id, stream: the gateway's own.
      continue;
    }
    const current = body[key];
    if (current === undefined) body[key] = value;
    else if (isObject(current) && isObject(value)) {
      // Objects the IR filled in part (text.format, reasoning.effort): the caller's other keys join them.
      for (const k in value) if (current[k] === undefined) current[k] = value[k];
    }
  }
}

export function encodeResponsesRequest(req: IrRequest, target: DriverTarget, stream: boolean, warnings: Warning[]): EncodedRequest {
  const body: ResponsesCreateBody = {
    model: target.model,
    input: encodeInput(req.turns, req.sourceProtocol, warnings),
    store: false,
    include: [ENCRYPTED_REASONING],
    stream,
  };

  let instructions = '';
  for (const part of req.system) {
    if (part.text === '') continue;
    instructions = instructions === '' ? part.text : instructions + '\n\n' + part.text;
  }
  if (instructions !== '') body.instructions = instructions;

  if (req.tools.length > 0) {
    body.tools = encodeTools(req.tools);
    // A choice without tools is meaningless, and `required` / a named tool would be a 400.
    if (req.toolChoice !== undefined) body.tool_choice = encodeToolChoice(req.toolChoice, req.tools);
  }
  if (req.parallelToolCalls !== undefined) body.parallel_tool_calls = req.parallelToolCalls;

  if (req.maxOutputTokens !== undefined) body.max_output_tokens = Math.max(MIN_OUTPUT_TOKENS, req.maxOutputTokens);
  if (req.temperature !== undefined) body.temperature = req.temperature;
  if (req.topP !== undefined) body.top_p = req.topP;
  if (req.topK !== undefined) warnings.push({ field: 'top_k', message: 'top_k is not supported by the Responses API; dropped' });
  warnSeedAndPenalties(req, 'the Responses API', warnings);
  if (req.stopSequences.length > 0) {
    warnings.push({ field: 'stop_sequences', message: 'stop sequences are not supported by the Responses API; dropped' });
  }

  const reasoning = encodeReasoning(req.reasoning);
  if (reasoning !== undefined) body.reasoning = reasoning;
  if (req.outputFormat !== undefined) body.text = { format: textFormat(req.outputFormat) };
  if (req.metadata !== undefined) body.metadata = req.metadata;
  if (req.user !== undefined) body.safety_identifier = fitIdentifier(req.user, OPENAI_IDENTIFIER_MAX);

  for (const protocol in req.extras) {
    const extras = req.extras[protocol as keyof IrRequest['extras']];
    if (!extras) continue;
    if (protocol === 'responses' && req.sourceProtocol === 'responses') {
      applyResponsesExtras(body, extras, stream, warnings);
    } else {
      for (const key in extras) warnings.push({ field: key, message: `${key} has no Responses equivalent; dropped` });
    }
  }

  // A Responses caller's own identifiers, forwarded from extras: the same limit (mapping.md §15.52).
  for (const key of IDENTIFIER_KEYS) {
    const value = body[key];
    if (typeof value === 'string') body[key] = fitIdentifier(value, OPENAI_IDENTIFIER_MAX);
  }

  return { path: RESPONSES_PATH, headers: openaiHeaders(target), body: JSON.stringify(body) };
}

const IDENTIFIER_KEYS = ['prompt_cache_key', 'user'] as const;
