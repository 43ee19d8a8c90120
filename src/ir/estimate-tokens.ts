// The gateway's own count of a request's input tokens, where no upstream counter answers: count_tokens /
// input_tokens for upstreams without one (mapping.md §15.49), the demo provider, and the input figure of
// a translated Messages stream's message_start, before the upstream has reported its count (§15.53).
import type { IrRequest } from './types.js';

/** Characters per token the gateway assumes: fewer than real tokenizers average on prose, so counts
 * err high and a text cut to N tokens' worth of characters stays within N real tokens (output-cap.ts). */
export const CHARS_PER_TOKEN = 3;

/** A deliberately high estimate (≈ 1 token per 3 characters of everything sent). */
export function estimateInputTokens(req: IrRequest): number {
  let chars = 0;
  for (const s of req.system) chars += s.text.length;
  for (const t of req.turns) {
    for (const p of t.parts) {
      switch (p.type) {
        case 'text':
        case 'reasoning':
          chars += p.text.length;
          break;
        case 'tool-call':
          chars += p.name.length + p.arguments.length;
          break;
        case 'tool-result':
          for (const c of p.content) chars += c.type === 'text' ? c.text.length : 1600 * 3;
          break;
        case 'image':
          chars += 1600 * 3; // an image costs roughly 1,600 tokens at the usual sizes
          break;
        case 'file':
          chars += p.source.kind === 'base64' || p.source.kind === 'text' ? p.source.data.length : 3000;
          break;
        default: {
          const never: never = p;
          return never;
        }
      }
    }
    chars += 12;
  }
  for (const tool of req.tools) chars += tool.name.length + (tool.description?.length ?? 0) + JSON.stringify(tool.inputSchema ?? {}).length;
  return Math.ceil(chars / CHARS_PER_TOKEN) + 8;
}
