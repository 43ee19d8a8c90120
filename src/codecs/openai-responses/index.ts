// The OpenAI Responses front door: `POST /v1/responses` (and input_tokens) ⇄ IR.
import type { InboundCodec } from '../types.js';
import { decodeRequest } from './decode-request.js';
import { encodeError } from './encode-error.js';
import { createStreamEncoder, KEEP_ALIVE } from './encode-events.js';
import { encodeResult } from './encode-result.js';

export const responsesCodec: InboundCodec = {
  protocol: 'responses',
  requestIdHeader: 'x-request-id',
  responseIdPrefix: 'resp_',
  keepAliveFrame: KEEP_ALIVE,
  countEndpoint: 'input_tokens',
  decodeRequest,
  // input_tokens takes the same body as a generation request.
  decodeCountRequest: decodeRequest,
  encodeCount: (inputTokens) => '{"object":"response.input_tokens","input_tokens":' + inputTokens + '}',
  encodeResult,
  createStreamEncoder,
  encodeError,
};
