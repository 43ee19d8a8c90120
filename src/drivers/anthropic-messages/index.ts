// The Anthropic Messages upstream driver (api.anthropic.com and Anthropic-compatible servers).
import type { Driver } from '../types.js';
import { messagesCountTokensRequest } from './count-tokens-request.js';
import { createMessagesEventDecoder } from './decode-events.js';
import { decodeMessagesError, decodeMessagesStreamError } from './decode-error.js';
import { decodeMessagesResult } from './decode-result.js';
import { encodeMessagesRequest } from './encode-request.js';
import { messagesPassthroughRequest } from './passthrough-request.js';
import { messagesForwardedHeaders } from './request-headers.js';

export const anthropicDriver: Driver = {
  protocol: 'messages',
  encodeRequest: encodeMessagesRequest,
  createEventDecoder: createMessagesEventDecoder,
  decodeResult: decodeMessagesResult,
  decodeError: decodeMessagesError,
  decodeStreamError: decodeMessagesStreamError,
  forwardedHeaders: messagesForwardedHeaders,
  passthroughRequest: messagesPassthroughRequest,
  countTokensRequest: messagesCountTokensRequest,
};
