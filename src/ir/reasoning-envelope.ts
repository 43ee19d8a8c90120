// The reasoning envelope ("Env" in mapping.md §8): opaque reasoning state from one vendor family,
// carried through a caller of the other protocol inside the one field that caller echoes verbatim
// (Anthropic `thinking.signature` / `redacted_thinking.data`, Responses `encrypted_content`).
// Format: "sy1." + base64url(JSON of the carry). Decoding never throws: a foreign or edited blob is
// simply not an envelope.
import type { ReasoningCarry } from './types.js';

const PREFIX = 'sy1.';

export function isEnvelope(value: string): boolean {
  return value.startsWith(PREFIX);
}

export function encodeEnvelope(carry: ReasoningCarry): string {
  return PREFIX + Buffer.from(JSON.stringify(carry), 'utf8').toString('base64url');
}

export function decodeEnvelope(value: string): ReasoningCarry | undefined {
  if (!value.startsWith(PREFIX)) return undefined;
  try {
    const carry = JSON.parse(Buffer.from(value.slice(PREFIX.length), 'base64url').toString('utf8')) as ReasoningCarry;
    if (carry && typeof carry === 'object') {
      if (carry.family === 'anthropic' && carry.block && typeof carry.block === 'object') return carry;
      if (carry.family === 'openai' && typeof carry.id === 'string' && Array.isArray(carry.summary)) return carry;
      if (carry.family === 'chat' && typeof carry.text === 'string') return carry;
      if (carry.family === 'google' && (typeof carry.signature === 'string' || carry.signature === null) && (carry.on === 'thought' || carry.on === 'next')) return carry;
    }
  } catch {
    // not ours
  }
  return undefined;
}
