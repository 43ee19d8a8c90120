// The OpenAI Responses upstream driver: pure encode/decode functions (I/O lives in the lanes).
import { openaiForwardedHeaders } from '../openai-headers.js';
import type { Driver } from '../types.js';
import { responsesCountTokensRequest } from './count-tokens-request.js';
import { createResponsesEventDecoder } from './decode-events.js';
import { decodeResponsesError, decodeResponsesStreamError } from './decode-error.js';
import { decodeResponsesResult } from './decode-result.js';
import { encodeResponsesRequest, MIN_OUTPUT_TOKENS } from './encode-request.js';
import { responsesPassthroughRequest } from './passthrough-request.js';

export const responsesDriver: Driver = {
  protocol: 'responses',
  minOutputTokens: MIN_OUTPUT_TOKENS,
  encodeRequest: encodeResponsesRequest,
  createEventDecoder: createResponsesEventDecoder,
  decodeResult: decodeResponsesResult,
  decodeError: decodeResponsesError,
  decodeStreamError: decodeResponsesStreamError,
  forwardedHeaders: openaiForwardedHeaders,
  passthroughRequest: responsesPassthroughRequest,
  countTokensRequest: responsesCountTokensRequest,
};
