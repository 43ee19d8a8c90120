// The Google Gemini upstream driver: `generateContent` on the Gemini API (and, through a platform, on
// Vertex AI). gemini.md has the wire notes, mapping.md §16 the translation rules.
import type { Driver } from '../types.js';
import { geminiCount, geminiCountTokensRequest } from './count-tokens-request.js';
import { createGeminiEventDecoder } from './decode-events.js';
import { decodeGeminiError, decodeGeminiStreamError } from './decode-error.js';
import { decodeGeminiResult } from './decode-result.js';
import { encodeGeminiRequest } from './encode-request.js';
import { geminiPassthroughRequest } from './passthrough-request.js';

export const geminiDriver: Driver = {
  protocol: 'gemini',
  encodeRequest: encodeGeminiRequest,
  createEventDecoder: createGeminiEventDecoder,
  decodeResult: decodeGeminiResult,
  decodeError: decodeGeminiError,
  decodeStreamError: decodeGeminiStreamError,
  // No caller header means anything to Google's API.
  forwardedHeaders: () => undefined,
  // A Gemini door caller's body goes up as it came (the model is in the path).
  passthroughRequest: geminiPassthroughRequest,
  countTokensRequest: geminiCountTokensRequest,
  decodeCount: geminiCount,
};
