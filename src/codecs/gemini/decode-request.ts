// Gemini door request → IR. The model and the stream form come from the path (the route hands them
// over); the body is validated (compiled TypeBox, 400 naming the field), then each known field is
// mapped. What only a Gemini upstream can serve marks the request pass-through only (other upstreams
// refuse it: dropping it would change the answer); what can be dropped without changing the answer
// is, with a warning.
import { HTTPS_ONLY, type MediaUrlRule } from '../../ir/media-url.js';
import type { IrRequest, Warning } from '../../ir/types.js';
import type { GenerateContentRequestBody } from '../../protocols/gemini/caller-request.js';
import { decodeGenerationConfig } from './decode-config.js';
import { decodeContents, decodeSystem } from './decode-contents.js';
import { decodeToolConfig, decodeTools } from './decode-tools.js';
import { validateCountRequest, validateGenerateRequest } from './request-validation.js';

/** Top-level keys this decoder maps. */
const MAPPED = new Set(['contents', 'systemInstruction', 'tools', 'toolConfig', 'generationConfig', 'safetySettings', 'cachedContent', 'model']);

export function decodeGenerateRequest(body: unknown, model: string, stream: boolean, warnings: Warning[], mediaUrls: MediaUrlRule = HTTPS_ONLY): IrRequest {
  return toIr(validateGenerateRequest(body), model, stream, warnings, mediaUrls);
}

/** `:countTokens`: `generateContentRequest`, or bare `contents` (gemini.md §12). */
export function decodeCountRequest(body: unknown, model: string, warnings: Warning[], mediaUrls: MediaUrlRule = HTTPS_ONLY): IrRequest {
  const valid = validateCountRequest(body);
  const inner = valid.generateContentRequest ?? { contents: valid.contents ?? [] };
  return toIr(inner, model, false, warnings, mediaUrls);
}

function toIr(body: GenerateContentRequestBody, model: string, stream: boolean, warnings: Warning[], mediaUrls: MediaUrlRule): IrRequest {
  const ir: IrRequest = {
    model,
    system: decodeSystem(body.systemInstruction),
    turns: decodeContents(body.contents, warnings, mediaUrls),
    tools: [],
    toolChoice: undefined,
    parallelToolCalls: undefined,
    maxOutputTokens: undefined,
    temperature: undefined,
    topP: undefined,
    topK: undefined,
    stopSequences: [],
    reasoning: undefined,
    outputFormat: undefined,
    user: undefined,
    metadata: undefined,
    stream,
    sourceProtocol: 'gemini',
    extras: {},
  };
  const tools = decodeTools(body.tools);
  ir.tools = tools.tools;
  ir.toolChoice = decodeToolConfig(body.toolConfig, ir.tools, warnings);
  const geminiOnly = decodeGenerationConfig(body.generationConfig, ir, warnings);
  geminiOnly.push(...tools.googleOnly);
  // Cached content is part of the prompt: without it the answer is another one.
  if (body.cachedContent !== undefined) geminiOnly.push('cachedContent');
  if (geminiOnly.length > 0) {
    ir.passthroughOnly = {
      param: geminiOnly[0]!,
      message: `${geminiOnly.join(', ')}: only supported when the model is served by a Gemini upstream; model '${model}' is not`,
    };
  }
  if (body.safetySettings !== undefined && body.safetySettings.length > 0) {
    warnings.push({ field: 'safetySettings', message: 'safetySettings apply on a Gemini upstream only; dropped (the upstream applies its own policy)' });
  }
  for (const key in body) {
    if (!MAPPED.has(key)) warnings.push({ field: 'extras', message: `${key.slice(0, 64)} is not translated; dropped` });
  }
  return ir;
}
