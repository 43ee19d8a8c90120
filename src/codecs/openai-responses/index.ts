// The OpenAI Responses front door: `POST /v1/responses` (and input_tokens) ⇄ IR.
import type { CountingCodec } from '../types.js';
import { decodeRequest } from './decode-request.js';
import { encodeError } from '../openai-error.js';
import { createStreamEncoder, KEEP_ALIVE } from './encode-events.js';
import { encodeResult } from './encode-result.js';
import { responsesSocket } from './socket-events.js';

export const responsesCodec: CountingCodec = {
  protocol: 'responses',
  path: '/v1/responses',
  outputLimitField: 'max_output_tokens',
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
  socket: responsesSocket,
};
