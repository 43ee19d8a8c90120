// Texts a stream builds delta by delta (the answer a fold or an encoder must repeat at the end, reasoning
// kept for its signature) are grown with `+=`, which V8 keeps as a rope: a 32-byte node per append beside
// each delta's own string. Held for the whole stream, a long answer cost about five times its characters
// (6,000 deltas of 13 characters: 375 KiB against 76 K characters), twice over on the Responses door, where
// the encoder and the fold of a stored answer each hold one. Reading a character makes V8 flatten a rope in
// place, after which its pieces are garbage: once every FLATTEN_EVERY appends, the text is about its
// characters again (81 KiB there), for ≈ 0.2 µs more per append, the copies included.

/** Appends between two flattenings of a growing text. */
export const FLATTEN_EVERY = 256;

/** `text`, flattened when `appends` (how many appends built it so far) is a multiple of FLATTEN_EVERY. */
export function keepFlat(text: string, appends: number): string {
  if (appends % FLATTEN_EVERY === 0) text.charCodeAt(0);
  return text;
}
