// The OpenAI Chat Completions front door: `POST /v1/chat/completions` ⇄ IR.
import { encodeError } from '../openai-error.js';
import type { InboundCodec } from '../types.js';
import { decodeRequest } from './decode-request.js';
import { createStreamEncoder, KEEP_ALIVE } from './encode-events.js';
import { encodeResult } from './encode-result.js';

export const chatCodec: InboundCodec = {
  protocol: 'chat',
  path: '/v1/chat/completions',
  requestIdHeader: 'x-request-id',
  responseIdPrefix: 'chatcmpl-',
  keepAliveFrame: KEEP_ALIVE,
  outputLimitField: 'max_completion_tokens',
  decodeRequest,
  encodeResult,
  createStreamEncoder,
  encodeError,
};
