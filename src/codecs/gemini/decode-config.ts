// Gemini `generationConfig` → IR sampling, output format and reasoning (gemini.md §3, §5).
import type { IrRequest, OutputFormat, ReasoningEffort, ReasoningRequest, Warning } from '../../ir/types.js';
import type { CallerGenerationConfigBody } from '../../protocols/gemini/caller-request.js';
import { openApiToJsonSchema } from './decode-tools.js';
import { fieldError } from './request-validation.js';

const LEVELS: Record<string, ReasoningEffort> = { MINIMAL: 'minimal', LOW: 'low', MEDIUM: 'medium', HIGH: 'high' };

/** generationConfig keys mapped or judged here; any other is dropped with a warning naming it. */
const MAPPED = new Set([
  'maxOutputTokens',
  'temperature',
  'topP',
  'topK',
  'candidateCount',
  'stopSequences',
  'seed',
  'presencePenalty',
  'frequencyPenalty',
  'responseLogprobs',
  'logprobs',
  'responseModalities',
  'responseMimeType',
  'responseSchema',
  'responseJsonSchema',
  'thinkingConfig',
]);

/** Fills `ir`; returns the fields only a Gemini upstream can serve. */
export function decodeGenerationConfig(config: CallerGenerationConfigBody | undefined, ir: IrRequest, warnings: Warning[]): string[] {
  const geminiOnly: string[] = [];
  if (!config) return geminiOnly;
  ir.maxOutputTokens = config.maxOutputTokens;
  ir.temperature = config.temperature;
  ir.topP = config.topP;
  ir.topK = config.topK;
  if (config.seed !== undefined) ir.seed = config.seed;
  if (config.presencePenalty !== undefined) ir.presencePenalty = config.presencePenalty;
  if (config.frequencyPenalty !== undefined) ir.frequencyPenalty = config.frequencyPenalty;
  if (config.stopSequences) ir.stopSequences = config.stopSequences;
  if (config.candidateCount !== undefined && config.candidateCount > 1) geminiOnly.push('generationConfig.candidateCount');
  // Dropping these would answer without what was asked for (log-probabilities, audio or images).
  if (config.responseLogprobs === true || (config.logprobs !== undefined && config.logprobs > 0)) geminiOnly.push('generationConfig.responseLogprobs');
  if (config.responseModalities?.some((m) => m !== 'TEXT' && m !== 'MODALITY_UNSPECIFIED')) geminiOnly.push('generationConfig.responseModalities');
  ir.outputFormat = outputFormat(config, geminiOnly);
  if (config.thinkingConfig) ir.reasoning = reasoning(config.thinkingConfig, warnings);
  for (const key in config) {
    if (!MAPPED.has(key)) warnings.push({ field: 'generationConfig', message: `generationConfig.${key.slice(0, 64)} is not translated; dropped` });
  }
  return geminiOnly;
}

function outputFormat(config: CallerGenerationConfigBody, geminiOnly: string[]): OutputFormat | undefined {
  const mime = config.responseMimeType;
  const schema = config.responseJsonSchema ?? (config.responseSchema !== undefined ? (openApiToJsonSchema(config.responseSchema) as Record<string, unknown>) : undefined);
  if (config.responseJsonSchema !== undefined && config.responseSchema !== undefined) {
    throw fieldError('generationConfig.responseSchema', 'responseSchema and responseJsonSchema are exclusive');
  }
  if (mime === undefined || mime === 'text/plain') {
    if (schema !== undefined) throw fieldError('generationConfig.responseMimeType', 'a response schema needs responseMimeType "application/json"');
    return undefined;
  }
  if (mime === 'application/json') return schema === undefined ? { type: 'json_object' } : { type: 'json_schema', name: 'response', schema };
  // `text/x.enum` and the like: Gemini's own constrained decoding.
  geminiOnly.push('generationConfig.responseMimeType');
  return undefined;
}

function reasoning(tc: NonNullable<CallerGenerationConfigBody['thinkingConfig']>, warnings: Warning[]): ReasoningRequest {
  const out: ReasoningRequest = {};
  // includeThoughts: the answer shows thought summaries (the encoders read `summary`).
  if (tc.includeThoughts === true) {
    out.summary = 'auto';
    out.display = 'summarized';
  } else {
    out.display = 'omitted';
  }
  if (tc.thinkingLevel !== undefined && tc.thinkingLevel !== 'THINKING_LEVEL_UNSPECIFIED') {
    if (tc.thinkingBudget !== undefined) throw fieldError('generationConfig.thinkingConfig', 'thinkingBudget and thinkingLevel are exclusive');
    out.effort = LEVELS[tc.thinkingLevel];
    out.mode = 'adaptive';
    return out;
  }
  const budget = tc.thinkingBudget;
  if (budget === undefined) return out;
  if (budget === 0) out.mode = 'disabled';
  else if (budget === -1) out.mode = 'adaptive';
  else {
    out.mode = 'enabled';
    out.budgetTokens = budget;
    if (budget < 1024) warnings.push({ field: 'thinkingConfig', message: `thinkingBudget ${budget} is below what some upstreams accept; they may raise it` });
  }
  return out;
}
