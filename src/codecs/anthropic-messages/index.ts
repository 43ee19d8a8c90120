// The Anthropic Messages front door: `POST /v1/messages` (and count_tokens) ⇄ IR.
import type { CountingCodec } from '../types.js';
import { decodeCountTokensRequest, decodeRequest } from './decode-request.js';
import { encodeError } from './encode-error.js';
import { createStreamEncoder, PING } from './encode-events.js';
import { encodeResult } from './encode-result.js';

export { decodeCountTokensRequest };

export const messagesCodec: CountingCodec = {
  protocol: 'messages',
  path: '/v1/messages',
  outputLimitField: 'max_tokens',
  requestIdHeader: 'request-id',
  responseIdPrefix: 'msg_',
  keepAliveFrame: PING,
  countEndpoint: 'count_tokens',
  decodeRequest,
  decodeCountRequest: decodeCountTokensRequest,
  encodeCount: (inputTokens) => '{"input_tokens":' + inputTokens + '}',
  encodeResult,
  createStreamEncoder,
  encodeError,
};
