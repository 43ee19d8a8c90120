// The OpenAI Responses upstream driver: pure encode/decode functions (I/O lives in the lanes).
import type { Driver } from '../types.js';
import { createResponsesEventDecoder } from './decode-events.js';
import { decodeResponsesError } from './decode-error.js';
import { decodeResponsesResult } from './decode-result.js';
import { encodeResponsesRequest } from './encode-request.js';

export const responsesDriver: Driver = {
  protocol: 'responses',
  encodeRequest: encodeResponsesRequest,
  createEventDecoder: createResponsesEventDecoder,
  decodeResult: decodeResponsesResult,
  decodeError: decodeResponsesError,
};
