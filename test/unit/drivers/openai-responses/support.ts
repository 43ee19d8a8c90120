// Shared by the Responses driver tests: an IR request builder, a target, and a fixture decoder that
// runs raw bytes through the real SSE parser and the driver's event decoder.
import { responsesDriver } from '../../../../src/drivers/openai-responses/index.js';
import type { DriverTarget } from '../../../../src/drivers/types.js';
import type { IrEvent, IrRequest } from '../../../../src/ir/types.js';
import { decodeWith, irRequest, upstreamFixtures } from '../driver-support.js';

const FIXTURES = upstreamFixtures('openai-responses');
export const fixtureBytes = FIXTURES.bytes;
export const fixtureJson = FIXTURES.json;

export function request(over: Partial<IrRequest> = {}): IrRequest {
  return irRequest({ model: 'alias', sourceProtocol: 'messages' }, over);
}

export const target: DriverTarget = {
  model: 'gpt-5',
  apiKey: 'sk-upstream',
  headers: { 'x-config-header': 'on' },
  options: { defaultMaxTokens: 4096, maxTokensField: 'max_tokens', echoReasoningContent: false, systemRole: 'system' },
};

/** Bytes (in the given chunks) → IR events, through SseParser and the driver's decoder, ending both. */
export function decodeChunks(chunks: readonly Uint8Array[], req: IrRequest = request()): IrEvent[] {
  return decodeWith(responsesDriver, req, chunks);
}

/** Offsets at which splitting the bytes in two changes the decoded events (expected: none). */
export function unstableSplits(bytes: Buffer, req: IrRequest = request()): number[] {
  const whole = JSON.stringify(decodeChunks([bytes], req));
  const bad: number[] = [];
  for (let i = 1; i < bytes.length; i++) {
    if (JSON.stringify(decodeChunks([bytes.subarray(0, i), bytes.subarray(i)], req)) !== whole) bad.push(i);
  }
  return bad;
}
