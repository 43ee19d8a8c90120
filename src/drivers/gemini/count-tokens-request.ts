// `:countTokens` (gemini.md §12): the generation request wrapped in `generateContentRequest`, with the
// model named inside it as `models/{m}`. A Gemini door caller's own request is forwarded (its bare
// `contents` wrapped the same way); any other is encoded from the IR.
import type { IrRequest } from '../../ir/types.js';
import type { GeminiCountTokensRequest } from '../../protocols/gemini/request.js';
import type { DriverTarget, EncodedRequest } from '../types.js';
import { geminiRequestBody } from './encode-request.js';
import { geminiHeaders, geminiPath } from './paths.js';

export function geminiCountTokensRequest(req: IrRequest, target: DriverTarget, callerBody?: Record<string, unknown>): EncodedRequest {
  const model = target.model.startsWith('models/') ? target.model : 'models/' + target.model;
  if (callerBody) {
    const given = (callerBody.generateContentRequest as Record<string, unknown> | undefined) ?? { contents: callerBody.contents };
    const body = { generateContentRequest: { ...given, model } };
    return { path: geminiPath(target.model, 'countTokens'), headers: geminiHeaders(target), body: JSON.stringify(body) };
  }
  const inner = geminiRequestBody(req, target.model, [], target.mediaUrls);
  // Counting takes no answer-shaping settings (thinking, limits): only what is counted.
  delete inner.generationConfig;
  const body: GeminiCountTokensRequest = { generateContentRequest: { model, ...inner } };
  return { path: geminiPath(target.model, 'countTokens'), headers: geminiHeaders(target), body: JSON.stringify(body) };
}

/** The answer's count (`totalTokens`), undefined when absent. */
export function geminiCount(json: unknown): number | undefined {
  const n = json && typeof json === 'object' ? (json as { totalTokens?: unknown }).totalTokens : undefined;
  return typeof n === 'number' ? n : undefined;
}
