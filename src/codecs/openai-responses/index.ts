// The OpenAI Responses front door: `POST /v1/responses` (and input_tokens) ⇄ IR.
import type { InboundCodec } from '../types.js';
import { decodeRequest } from './decode-request.js';
import { encodeError } from './encode-error.js';
import { createStreamEncoder } from './encode-events.js';
import { encodeResult } from './encode-result.js';

export const responsesCodec: InboundCodec = {
  protocol: 'responses',
  decodeRequest,
  encodeResult,
  createStreamEncoder,
  encodeError,
};
