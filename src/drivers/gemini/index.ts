// The Google Gemini upstream driver: `generateContent` on the Gemini API (and, through a platform, on
// Vertex AI). gemini.md has the wire notes, mapping.md §16 the translation rules.
import type { Driver } from '../types.js';
import { geminiCount, geminiCountTokensRequest } from './count-tokens-request.js';
import { createGeminiEventDecoder } from './decode-events.js';
import { decodeGeminiError, decodeGeminiStreamError } from './decode-error.js';
import { decodeGeminiResult } from './decode-result.js';
import { encodeGeminiRequest } from './encode-request.js';

export const geminiDriver: Driver = {
  protocol: 'gemini',
  encodeRequest: encodeGeminiRequest,
  createEventDecoder: createGeminiEventDecoder,
  decodeResult: decodeGeminiResult,
  decodeError: decodeGeminiError,
  decodeStreamError: decodeGeminiStreamError,
  // No caller header means anything to Google's API.
  forwardedHeaders: () => undefined,
  // Gemini is never a front door: no pass-through, and counting always encodes the IR.
  countTokensRequest: (req, target) => geminiCountTokensRequest(req, target),
  decodeCount: geminiCount,
};
