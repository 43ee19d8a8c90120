// Shared builders for the Chat Completions driver tests: IR requests, driver targets, fixture bytes,
// and a decoder run that goes through the real SSE parser.
import { chatDriver } from '../../../../src/drivers/openai-chat/index.js';
import type { DriverOptions, DriverTarget } from '../../../../src/drivers/types.js';
import type { IrEvent, IrRequest } from '../../../../src/ir/types.js';
import { decodeWith, irRequest, upstreamFixtures } from '../driver-support.js';

export { expectWellFormed } from '../driver-support.js';

const FIXTURES = upstreamFixtures('openai-chat');
export const fixture = FIXTURES.bytes;
export const fixtureJson = FIXTURES.json;

export function request(over: Partial<IrRequest> = {}): IrRequest {
  return irRequest({ model: 'caller-alias', sourceProtocol: 'messages' }, over);
}

/** `apiKey: null` = an upstream without a key (local servers). */
export function target(options: Partial<DriverOptions> = {}, apiKey: string | null = 'sk-test'): DriverTarget {
  return {
    model: 'upstream-model',
    apiKey: apiKey ?? undefined,
    headers: {},
    options: { defaultMaxTokens: 4096, maxTokensField: 'max_tokens', echoReasoningContent: false, systemRole: 'system', ...options },
  };
}

/** Feed the chunks through SseParser into the driver's decoder, then end both. */
export function decodeChunks(req: IrRequest, chunks: readonly (Uint8Array | string)[]): IrEvent[] {
  return decodeWith(chatDriver, req, chunks);
}
