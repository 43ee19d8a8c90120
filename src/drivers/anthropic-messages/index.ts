// The Anthropic Messages upstream driver (api.anthropic.com and Anthropic-compatible servers).
import type { Driver } from '../types.js';
import { createMessagesEventDecoder } from './decode-events.js';
import { decodeMessagesError } from './decode-error.js';
import { decodeMessagesResult } from './decode-result.js';
import { encodeMessagesRequest } from './encode-request.js';

export const anthropicDriver: Driver = {
  protocol: 'messages',
  encodeRequest: encodeMessagesRequest,
  createEventDecoder: createMessagesEventDecoder,
  decodeResult: decodeMessagesResult,
  decodeError: decodeMessagesError,
};
