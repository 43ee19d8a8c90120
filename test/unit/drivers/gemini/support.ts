// Shared builders for the Gemini driver tests: IR requests, a driver target, fixture bytes, and a
// decoder run through the real SSE parser.
import { geminiDriver } from '../../../../src/drivers/gemini/index.js';
import type { DriverTarget } from '../../../../src/drivers/types.js';
import type { IrEvent, IrRequest } from '../../../../src/ir/types.js';
import { decodeWith, irRequest, upstreamFixtures } from '../driver-support.js';

export { expectWellFormed } from '../driver-support.js';

const FIXTURES = upstreamFixtures('gemini');
export const fixture = FIXTURES.bytes;
export const fixtureJson = FIXTURES.json;

export function request(over: Partial<IrRequest> = {}): IrRequest {
  return irRequest({ model: 'caller-alias', sourceProtocol: 'messages' }, over);
}

export function target(model = 'gemini-2.5-flash', apiKey: string | undefined = 'AIza-test'): DriverTarget {
  return {
    model,
    apiKey,
    headers: {},
    options: { defaultMaxTokens: 4096, maxTokensField: 'max_tokens', echoReasoningContent: false, systemRole: 'system' },
  };
}

export function decodeChunks(req: IrRequest, chunks: readonly (Uint8Array | string)[]): IrEvent[] {
  return decodeWith(geminiDriver, req, chunks);
}
