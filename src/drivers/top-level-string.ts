// Where a key's string value sits in the top-level object of a JSON text, found by walking the text
// from its start and stopping there: strings are skipped with indexOf, only structural characters
// outside them are looked at. For splicing one value into an answer instead of re-serialising it.

const QUOTE = 34;
const BACKSLASH = 92;
const COLON = 58;

/** [start, end) of the first top-level `key`'s string value (quotes included), or undefined when the
 * text has no such key before its end or the value is not a string. The text is assumed valid JSON
 * (the caller parsed it). */
export function topLevelString(text: string, key: string): [number, number] | undefined {
  const n = text.length;
  let depth = 0;
  let pos = 0;
  while (pos < n) {
    let quote = text.indexOf('"', pos);
    if (quote < 0) return undefined;
    for (let i = pos; i < quote; i++) {
      const c = text.charCodeAt(i);
      if (c === 123 || c === 91) depth++;
      else if (c === 125 || c === 93) depth--;
    }
    const end = closingQuote(text, quote);
    if (end < 0) return undefined;
    pos = end + 1;
    if (depth !== 1 || end - quote - 1 !== key.length || !text.startsWith(key, quote + 1)) continue;
    let i = skipSpace(text, pos);
    if (text.charCodeAt(i) !== COLON) continue;
    i = skipSpace(text, i + 1);
    if (text.charCodeAt(i) !== QUOTE) return undefined;
    const valueEnd = closingQuote(text, i);
    return valueEnd < 0 ? undefined : [i, valueEnd + 1];
  }
  return undefined;
}

/** The first quote after `quote` not escaped by an odd run of backslashes; -1 if none. */
export function closingQuote(text: string, quote: number): number {
  let end = quote;
  for (;;) {
    end = text.indexOf('"', end + 1);
    if (end < 0) return -1;
    let b = end - 1;
    while (text.charCodeAt(b) === BACKSLASH) b--;
    if ((end - 1 - b) % 2 === 0) return end;
  }
}

/** The first index at or after `i` that is not JSON whitespace. */
export function skipSpace(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
    i++;
  }
}
