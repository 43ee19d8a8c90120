// The response object (responses.md §8) as JSON text. Everything echoed from the request is rendered
// once per request into fixed fragments; each snapshot (created, in_progress, the terminal event, the
// non-streamed body) then only splices in status, error, output and usage. Values are always concrete
// (numbers, booleans, strings) because the Open Responses schema rejects nulls in those fields.
import { responsesToolChoice } from '../../ir/tool-choice.js';
import type { IrRequest, OutputFormat, ToolDefinition } from '../../ir/types.js';
import { jsonString } from '../json-string-memo.js';
import type { EncodeContext } from '../types.js';

export interface ResponseShape {
  /** `{"id":…,…,"status":"` */
  readonly head: string;
  /** `","background":…,"completed_at":` */
  readonly afterStatus: string;
  /** `,"instructions":…,"model":…,"output":` */
  readonly beforeOutput: string;
  /** `,"parallel_tool_calls":…,"truncation":…,"usage":` */
  readonly beforeUsage: string;
  /** `,"user":…,"frequency_penalty":0}` */
  readonly tail: string;
  /** The caller asked for reasoning summaries (`reasoning.summary` non-null). */
  readonly summaryAsked: boolean;
}

export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';

/** `completed_at` for an answer finishing now: the clock in Unix seconds, never before `created_at`. */
export function completedAtNow(createdAt: number): number {
  return Math.max(createdAt, Math.floor(Date.now() / 1000));
}

export function responseJson(
  shape: ResponseShape,
  status: ResponseStatus,
  completedAt: number | null,
  errorJson: string,
  incompleteJson: string,
  outputJson: string,
  usageJson: string,
): string {
  return (
    shape.head + status + shape.afterStatus + completedAt + ',"error":' + errorJson + ',"incomplete_details":' + incompleteJson +
    shape.beforeOutput + outputJson + shape.beforeUsage + usageJson + shape.tail
  );
}

const NO_EXTRAS: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;

function str(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

function num(v: unknown, fallback: number): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : fallback;
}

function obj(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

export function responseShape(ctx: EncodeContext): ResponseShape {
  const req = ctx.request;
  const x = req.extras.responses ?? NO_EXTRAS;
  const j = JSON.stringify;
  const text = obj(x.text);
  return {
    head: '{"id":' + j(ctx.responseId) + ',"object":"response","created_at":' + ctx.createdAt + ',"status":"',
    afterStatus: '","background":' + (x.background === true) + ',"completed_at":',
    beforeOutput:
      ',"instructions":' + (typeof x.instructions === 'string' ? jsonString(x.instructions) : 'null') +
      ',"max_output_tokens":' + (req.maxOutputTokens ?? null) +
      ',"max_tool_calls":' + j(typeof x.max_tool_calls === 'number' ? x.max_tool_calls : null) +
      ',"model":' + j(req.model) +
      ',"output":',
    beforeUsage:
      ',"parallel_tool_calls":' + (req.parallelToolCalls ?? true) +
      ',"previous_response_id":' + j(str(x.previous_response_id)) +
      ',"prompt_cache_key":' + j(str(x.prompt_cache_key)) +
      ',"reasoning":' + (req.reasoning ? j({ effort: req.reasoning.effort ?? null, summary: req.reasoning.summary ?? null }) : 'null') +
      ',"safety_identifier":' + j(req.user ?? null) +
      ',"service_tier":' + j(str(x.service_tier) ?? 'default') +
      ',"store":' + (x.store !== false) +
      ',"temperature":' + num(req.temperature, 1) +
      ',"text":' + textEcho(req.outputFormat, str(text?.verbosity)) +
      ',"tool_choice":' + (req.toolChoice === undefined ? '"auto"' : j(responsesToolChoice(req.toolChoice, req.tools))) +
      ',"tools":' + (req.tools.length === 0 ? '[]' : j(toolsEcho(req.tools))) +
      ',"top_logprobs":' + num(x.top_logprobs, 0) +
      ',"top_p":' + num(req.topP, 1) +
      ',"truncation":' + j(str(x.truncation) ?? 'disabled') +
      ',"usage":',
    tail:
      ',"user":' + j(str(x.user)) +
      ',"metadata":' + (req.metadata == null ? '{}' : j(req.metadata)) +
      ',"presence_penalty":' + num(x.presence_penalty, 0) +
      ',"frequency_penalty":' + num(x.frequency_penalty, 0) +
      '}',
    summaryAsked: req.reasoning?.summary != null,
  };
}

function formatEcho(f: OutputFormat | undefined): unknown {
  if (f === undefined) return { type: 'text' };
  switch (f.type) {
    case 'text':
    case 'json_object':
      return { type: f.type };
    case 'json_schema':
      return f.description === undefined
        ? { type: 'json_schema', name: f.name ?? 'output', schema: f.schema, strict: f.strict ?? null }
        : { type: 'json_schema', name: f.name ?? 'output', description: f.description, schema: f.schema, strict: f.strict ?? null };
    default: {
      const never: never = f;
      return never;
    }
  }
}

/** The echo most requests get (no format, no verbosity), as text once. */
const DEFAULT_TEXT_ECHO = JSON.stringify({ format: { type: 'text' }, verbosity: 'medium' });

function textEcho(format: OutputFormat | undefined, verbosity: string | null): string {
  if (format === undefined && verbosity === null) return DEFAULT_TEXT_ECHO;
  return JSON.stringify({ format: formatEcho(format), verbosity: verbosity ?? 'medium' });
}

function toolEcho(t: ToolDefinition): Record<string, unknown> {
  if (t.kind === 'custom') {
    const out: Record<string, unknown> = { type: 'custom', name: t.name };
    if (t.description !== undefined) out.description = t.description;
    if (t.format !== undefined) out.format = t.format;
    return out;
  }
  return { type: 'function', name: t.name, description: t.description ?? null, parameters: t.inputSchema ?? null, strict: t.strict ?? null };
}

/** The tools the model was offered (built-ins were dropped in translation), namespaces regrouped. */
function toolsEcho(tools: IrRequest['tools']): unknown[] {
  const out: unknown[] = [];
  let groups: Map<string, { type: 'namespace'; name: string; description: string; tools: unknown[] }> | undefined;
  for (const t of tools) {
    if (t.namespace === undefined) {
      out.push(toolEcho(t));
      continue;
    }
    groups ??= new Map();
    let group = groups.get(t.namespace);
    if (group === undefined) {
      group = { type: 'namespace', name: t.namespace, description: '', tools: [] };
      groups.set(t.namespace, group);
      out.push(group);
    }
    group.tools.push(toolEcho(t));
  }
  return out;
}
