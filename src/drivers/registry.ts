// Upstream protocol → its driver.
import type { Protocol } from '../ir/types.js';
import { anthropicDriver } from './anthropic-messages/index.js';
import { geminiDriver } from './gemini/index.js';
import { chatDriver } from './openai-chat/index.js';
import { responsesDriver } from './openai-responses/index.js';
import type { Driver } from './types.js';

const DRIVERS: Record<Protocol, Driver> = {
  messages: anthropicDriver,
  responses: responsesDriver,
  chat: chatDriver,
  gemini: geminiDriver,
};

export function driverFor(protocol: Protocol): Driver {
  return DRIVERS[protocol];
}
