// Shared builders for the Anthropic Messages driver tests: IR requests, driver targets, fixture bytes,
// request-body encoding, and a decoder run through the real SSE parser.
import { anthropicDriver } from '../../../../src/drivers/anthropic-messages/index.js';
import type { DriverTarget } from '../../../../src/drivers/types.js';
import type { IrEvent, IrRequest, Warning } from '../../../../src/ir/types.js';
import { decodeWith, irRequest, upstreamFixtures } from '../driver-support.js';

export { expectWellFormed } from '../driver-support.js';

const FIXTURES = upstreamFixtures('anthropic-messages');
export const fixture = FIXTURES.bytes;
export const fixtureJson = FIXTURES.json;

export function request(over: Partial<IrRequest> = {}): IrRequest {
  return irRequest({ model: 'caller-alias', sourceProtocol: 'responses' }, over);
}

export function target(over: Partial<DriverTarget> = {}): DriverTarget {
  return {
    model: 'claude-sonnet-4-5',
    apiKey: 'sk-ant-test',
    headers: {},
    options: { defaultMaxTokens: 32000, maxTokensField: 'max_tokens', echoReasoningContent: false, systemRole: 'system' },
    ...over,
  };
}

export interface Encoded {
  body: Record<string, any>;
  headers: Record<string, string>;
  path: string;
  warnings: Warning[];
}

export function encode(req: IrRequest, stream = false, t: DriverTarget = target()): Encoded {
  const warnings: Warning[] = [];
  const out = anthropicDriver.encodeRequest(req, t, stream, warnings);
  return { body: JSON.parse(out.body) as Record<string, any>, headers: out.headers, path: out.path, warnings };
}

export function warningFields(warnings: readonly Warning[]): string[] {
  return warnings.map((w) => w.field);
}

/** Feed the chunks through SseParser into the driver's decoder, then end both. */
export function decodeChunks(req: IrRequest, chunks: readonly (Uint8Array | string)[]): IrEvent[] {
  return decodeWith(anthropicDriver, req, chunks);
}
