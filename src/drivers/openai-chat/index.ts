// The Chat Completions upstream driver (vLLM, Ollama, llama.cpp, OpenRouter, DeepSeek, OpenAI).
import type { Driver } from '../types.js';
import { createChatEventDecoder } from './decode-events.js';
import { decodeChatError } from './decode-error.js';
import { decodeChatResult } from './decode-result.js';
import { encodeChatRequest } from './encode-request.js';

export const chatDriver: Driver = {
  protocol: 'chat',
  encodeRequest: encodeChatRequest,
  createEventDecoder: createChatEventDecoder,
  decodeResult: decodeChatResult,
  decodeError: decodeChatError,
};
