// The Gemini API's own addressing (gemini.md §1): `/models/{model}:{method}` under the `v1beta` base
// URL, the key in `x-goog-api-key`. A cloud platform (Vertex AI) re-addresses these paths.
import type { DriverTarget } from '../types.js';

export type GeminiMethod = 'generateContent' | 'streamGenerateContent' | 'countTokens';

/** `models/` in a configured model name is tolerated (Google's own examples write it both ways). */
export function geminiPath(model: string, method: GeminiMethod): string {
  const name = model.startsWith('models/') ? model.slice(7) : model;
  const path = '/models/' + encodeURIComponent(name) + ':' + method;
  // Without alt=sse the stream is one long JSON array; SSE frames are what the decoder reads (§8).
  return method === 'streamGenerateContent' ? path + '?alt=sse' : path;
}

export function geminiHeaders(target: DriverTarget): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (target.apiKey) headers['x-goog-api-key'] = target.apiKey;
  return Object.assign(headers, target.headers);
}
