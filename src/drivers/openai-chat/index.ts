// The Chat Completions upstream driver (vLLM, Ollama, llama.cpp, OpenRouter, DeepSeek, OpenAI).
import { openaiForwardedHeaders } from '../openai-headers.js';
import type { Driver } from '../types.js';
import { createChatEventDecoder } from './decode-events.js';
import { decodeChatError, decodeChatStreamError } from './decode-error.js';
import { decodeChatResult } from './decode-result.js';
import { encodeChatRequest } from './encode-request.js';

export const chatDriver: Driver = {
  protocol: 'chat',
  encodeRequest: encodeChatRequest,
  createEventDecoder: createChatEventDecoder,
  decodeResult: decodeChatResult,
  decodeError: decodeChatError,
  decodeStreamError: decodeChatStreamError,
  forwardedHeaders: openaiForwardedHeaders,
  // Chat is never a front door (no pass-through) and has no token counter (the gateway estimates).
  countTokensRequest: () => undefined,
};
