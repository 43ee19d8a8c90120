// Server-sent-event framing and the splitting of text into deltas.

/** A named event (Anthropic, Responses): the `event:` line plus one-line JSON data. */
export const namedFrame = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** A data-only event (Chat Completions). */
export const dataFrame = (data: unknown) => `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

/**
 * Splits text into up to `pieces` non-empty chunks of similar size (never inside a surrogate pair), so that
 * clients must concatenate deltas. Empty text gives no chunks.
 */
export function splitText(text: string, pieces = 3): string[] {
  const chars = Array.from(text);
  if (chars.length === 0) return [];
  const count = Math.max(1, Math.min(pieces, Math.floor(chars.length / 3)));
  const size = Math.ceil(chars.length / count);
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''));
  return out;
}
