// Where a key's value sits in a JSON object (the top-level one, or one nested at a known offset),
// found by walking the text from the object's start and stopping there: strings are skipped with
// indexOf, only structural characters outside them are looked at. For splicing one value into an
// answer or a stream frame instead of re-serialising the whole of it.

const QUOTE = 34;
const BACKSLASH = 92;
const COLON = 58;

/** Where the value of the first `key` directly inside the object that opens at `from` (the text's
 * top-level object by default) begins, or -1 when that object has no such key. The text is assumed
 * valid JSON (the caller parsed it, or relays it as the upstream sent it). */
export function keyValueStart(text: string, key: string, from = 0): number {
  const n = text.length;
  let depth = 0;
  let pos = from;
  while (pos < n) {
    const quote = text.indexOf('"', pos);
    if (quote < 0) return -1;
    for (let i = pos; i < quote; i++) {
      const c = text.charCodeAt(i);
      if (c === 123 || c === 91) depth++;
      // The object closed before the key was found.
      else if ((c === 125 || c === 93) && --depth <= 0) return -1;
    }
    const end = closingQuote(text, quote);
    if (end < 0) return -1;
    pos = end + 1;
    if (depth !== 1 || end - quote - 1 !== key.length || !text.startsWith(key, quote + 1)) continue;
    const colon = skipSpace(text, pos);
    if (text.charCodeAt(colon) !== COLON) continue;
    return skipSpace(text, colon + 1);
  }
  return -1;
}

/** [start, end) of that key's value (quotes included) when it is a string, else undefined. */
export function topLevelString(text: string, key: string, from = 0): [number, number] | undefined {
  const start = keyValueStart(text, key, from);
  if (start < 0 || text.charCodeAt(start) !== QUOTE) return undefined;
  const end = closingQuote(text, start);
  return end < 0 ? undefined : [start, end + 1];
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
