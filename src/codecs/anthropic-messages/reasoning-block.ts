// Which Messages block carries an IR reasoning part, shared by the result and stream encoders so both
// modes agree: Anthropic's own state goes back native (byte-exact); any other family travels inside
// our envelope in the field the client echoes (`signature` or `data`).
import { encodeEnvelope } from '../../ir/reasoning-envelope.js';
import type { ReasoningCarry } from '../../ir/types.js';
import type { RedactedThinkingOutputBody, ThinkingOutputBody } from '../../protocols/anthropic-messages/response.js';

/** The block for a reasoning part; undefined for an empty part with nothing to carry. */
export function reasoningBlock(
  text: string,
  carry: ReasoningCarry | undefined,
): ThinkingOutputBody | RedactedThinkingOutputBody | undefined {
  if (carry?.family === 'anthropic') {
    const b = carry.block;
    if (b.type === 'thinking') return { type: 'thinking', thinking: text !== '' ? text : b.thinking, signature: b.signature };
    if (text === '') return { type: 'redacted_thinking', data: b.data };
  }
  if (carry === undefined) {
    if (text === '') return undefined;
    carry = { family: 'chat', text };
  }
  const env = encodeEnvelope(carry);
  return text !== '' ? { type: 'thinking', thinking: text, signature: env } : { type: 'redacted_thinking', data: env };
}

/** The `signature` closing a thinking block whose text (`text`) was streamed. */
export function streamedSignature(text: string, carry: ReasoningCarry | undefined): string {
  if (carry?.family === 'anthropic' && carry.block.type === 'thinking') return carry.block.signature;
  return encodeEnvelope(carry ?? { family: 'chat', text });
}
