// Token counts for a reply: scripted numbers win, otherwise rough estimates so that counts are never zero.
import type { OkReply, ReceivedRequest } from './types.js';

export interface ResolvedUsage {
  /** Uncached input (Anthropic `input_tokens`). */
  input: number;
  cacheRead: number;
  cacheWrite: number;
  /** All generated tokens, reasoning included. */
  output: number;
  reasoning: number;
}

export const estimateTokens = (chars: number) => Math.max(1, Math.ceil(chars / 4));

/** Input estimate from the request body size: ~4 characters per token. */
export function estimateInputTokens(body: unknown): number {
  const text = typeof body === 'string' ? body : JSON.stringify(body ?? '');
  return estimateTokens(text.length);
}

export function resolveUsage(reply: Pick<OkReply, 'blocks' | 'usage'>, req: ReceivedRequest): ResolvedUsage {
  const script = reply.usage ?? {};
  let reasoningEstimate = 0;
  let otherChars = 0;
  for (const block of reply.blocks) {
    if (block.type === 'reasoning') reasoningEstimate += estimateTokens(block.text.length);
    else if (block.type === 'text') otherChars += block.text.length;
    else otherChars += block.name.length + block.arguments.length;
  }
  const output = script.output ?? Math.max(1, reasoningEstimate + (otherChars > 0 ? estimateTokens(otherChars) : 0));
  return {
    input: script.input ?? estimateInputTokens(req.body),
    cacheRead: script.cacheRead ?? 0,
    cacheWrite: script.cacheWrite ?? 0,
    output,
    reasoning: Math.min(script.reasoning ?? reasoningEstimate, output),
  };
}
