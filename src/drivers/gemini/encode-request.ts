// IR request → Gemini `generateContent` / `streamGenerateContent?alt=sse` (gemini.md §1–§5, mapping.md
// §16). What cannot cross is dropped with a warning.
import type { MediaUrlRule } from '../../ir/media-url.js';
import type { IrRequest, OutputFormat, Warning } from '../../ir/types.js';
import type { GeminiGenerationConfig, GeminiRequest } from '../../protocols/gemini/request.js';
import type { DriverTarget, EncodedRequest } from '../types.js';
import { encodeContents, encodeSystem } from './encode-contents.js';
import { takesThinkingLevel, thinkingConfig } from './encode-thinking.js';
import { encodeTools } from './encode-tools.js';
import { geminiSchema } from './json-schema-subset.js';
import { geminiHeaders, geminiPath } from './paths.js';

/** Gemini accepts at most this many stop sequences. */
const MAX_STOP = 5;

/** The body without the model (Gemini addresses the model in the path). */
export function geminiRequestBody(req: IrRequest, model: string, warnings: Warning[], mediaUrls?: MediaUrlRule): GeminiRequest {
  const body: GeminiRequest = { contents: encodeContents(req, warnings, takesThinkingLevel(model), mediaUrls) };
  const system = encodeSystem(req);
  if (system) body.systemInstruction = system;
  const tools = encodeTools(req, warnings);
  if (tools.tools) body.tools = tools.tools;
  if (tools.toolConfig) body.toolConfig = tools.toolConfig;
  const config: GeminiGenerationConfig = {};
  if (req.maxOutputTokens !== undefined) config.maxOutputTokens = req.maxOutputTokens;
  if (req.temperature !== undefined) config.temperature = req.temperature;
  if (req.topP !== undefined) config.topP = req.topP;
  if (req.topK !== undefined) config.topK = req.topK;
  if (req.seed !== undefined) config.seed = req.seed;
  if (req.presencePenalty !== undefined) config.presencePenalty = req.presencePenalty;
  if (req.frequencyPenalty !== undefined) config.frequencyPenalty = req.frequencyPenalty;
  const stops = req.stopSequences;
  if (stops.length > 0) {
    config.stopSequences = stops.length > MAX_STOP ? stops.slice(0, MAX_STOP) : stops;
    if (stops.length > MAX_STOP) warnings.push({ field: 'stop_sequences', message: `Gemini accepts ${MAX_STOP} stop sequences; ${stops.length - MAX_STOP} dropped` });
  }
  outputFormat(req.outputFormat, config, warnings);
  const thinking = thinkingConfig(req.reasoning, model, warnings);
  if (thinking) config.thinkingConfig = thinking;
  if (Object.keys(config).length > 0) body.generationConfig = config;
  for (const protocol of ['messages', 'responses'] as const) {
    const extras = req.extras[protocol];
    if (!extras) continue;
    const keys = Object.keys(extras);
    if (keys.length > 0) warnings.push({ field: 'extras', message: `${protocol} fields not sent to a Gemini upstream: ${keys.join(', ')}` });
  }
  return body;
}

export function encodeGeminiRequest(req: IrRequest, target: DriverTarget, stream: boolean, warnings: Warning[]): EncodedRequest {
  const body = geminiRequestBody(req, target.model, warnings, target.mediaUrls);
  return {
    path: geminiPath(target.model, stream ? 'streamGenerateContent' : 'generateContent'),
    headers: geminiHeaders(target),
    body: JSON.stringify(body),
  };
}

/** Structured output (§5): JSON mode, with the schema in Gemini's subset. */
function outputFormat(format: OutputFormat | undefined, config: GeminiGenerationConfig, warnings: Warning[]): void {
  if (!format) return;
  switch (format.type) {
    case 'text':
      return;
    case 'json_object':
      config.responseMimeType = 'application/json';
      return;
    case 'json_schema': {
      config.responseMimeType = 'application/json';
      const { schema, dropped } = geminiSchema(format.schema);
      if (dropped.length > 0) warnings.push({ field: 'text.format', message: `JSON Schema keywords Gemini does not accept were dropped: ${dropped.join(', ')}` });
      config.responseJsonSchema = schema;
      return;
    }
    default: {
      const never: never = format;
      return never;
    }
  }
}
