// Every generation door's codec, by the protocol it speaks (codecs/doors.ts lists them).
import { messagesCodec } from './anthropic-messages/index.js';
import type { GenerationDoor } from './doors.js';
import { chatCodec } from './openai-chat/index.js';
import { responsesCodec } from './openai-responses/index.js';
import { geminiErrorCodec } from './gemini/index.js';
import type { InboundCodec } from './types.js';

export const DOOR_CODECS: Readonly<Record<GenerationDoor, InboundCodec>> = {
  messages: messagesCodec,
  responses: responsesCodec,
  chat: chatCodec,
  // Its model is in the path: its routes (http/routes/gemini-routes.ts) make a codec per request.
  gemini: geminiErrorCodec,
};
