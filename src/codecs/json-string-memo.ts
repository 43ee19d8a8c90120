// JSON text of a long string that comes back request after request — the `instructions` every turn of
// a conversation repeats — remembered for the few most recent distinct ones. Comparing the fresh
// string with a remembered one is a length check and one pass of memcmp; serialising it again escapes
// it character by character (a 1.4 kB prompt: ~0.1 µs against ~1.5 µs, bench/profiles.md).

/** Shorter strings are serialised every time: cheap, and they would only churn the slots. */
const MIN_LENGTH = 256;
/** Longer ones too: the memo must not hold large texts alive. */
const MAX_LENGTH = 64 * 1024;
const SLOTS = 8;

const texts: string[] = [];
const jsons: string[] = [];
let nextSlot = 0;

/** `JSON.stringify(text)`, from the memo when the same text was serialised recently. */
export function jsonString(text: string): string {
  const n = text.length;
  if (n < MIN_LENGTH || n > MAX_LENGTH) return JSON.stringify(text);
  for (let i = 0; i < texts.length; i++) {
    if (texts[i] === text) return jsons[i]!;
  }
  const json = JSON.stringify(text);
  texts[nextSlot] = text;
  jsons[nextSlot] = json;
  nextSlot = (nextSlot + 1) % SLOTS;
  return json;
}
