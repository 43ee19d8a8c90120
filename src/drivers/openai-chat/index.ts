// The Chat Completions upstream driver (vLLM, Ollama, llama.cpp, OpenRouter, DeepSeek, OpenAI).
import { openaiForwardedHeaders } from '../openai-headers.js';
import type { Driver } from '../types.js';
import { createChatEventDecoder } from './decode-events.js';
import { decodeChatError, decodeChatStreamError } from './decode-error.js';
import { decodeChatResult } from './decode-result.js';
import { encodeChatRequest } from './encode-request.js';
import { chatPassthroughRequest } from './passthrough-request.js';

export const chatDriver: Driver = {
  protocol: 'chat',
  encodeRequest: encodeChatRequest,
  createEventDecoder: createChatEventDecoder,
  decodeResult: decodeChatResult,
  decodeError: decodeChatError,
  decodeStreamError: decodeChatStreamError,
  forwardedHeaders: openaiForwardedHeaders,
  passthroughRequest: chatPassthroughRequest,
  // No token counter on this protocol: the gateway estimates.
  countTokensRequest: () => undefined,
};
