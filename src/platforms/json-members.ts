// Where named top-level members sit in a JSON object's text, so a platform can drop, add or replace
// members by splicing the text instead of parsing and re-serialising a whole request body (the
// pass-through lane's body keeps every byte the caller sent: thinking signatures, cache_control, unknown
// fields). Strings are skipped with indexOf; only the structural characters between them are looked at.
// The text is assumed to be valid JSON (the gateway parsed it, or encoded it itself).

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const COLON = 58;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;

/** One member: its key's opening quote and the end of its value (exclusive). */
export interface MemberRange {
  start: number;
  end: number;
}

/** The top-level object's members named in `names` (the first of a repeated key), and where the object
 * closes; undefined when the text is not an object. */
export function findMembers(text: string, names: readonly string[]): { members: (MemberRange | undefined)[]; close: number } | undefined {
  const members: (MemberRange | undefined)[] = new Array(names.length).fill(undefined);
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== OPEN_BRACE) return undefined;
  i = skipSpace(text, i + 1);
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === CLOSE_BRACE) return { members, close: i };
    if (c !== QUOTE) return undefined;
    const keyEnd = closingQuote(text, i);
    if (keyEnd < 0) return undefined;
    const colon = skipSpace(text, keyEnd + 1);
    if (text.charCodeAt(colon) !== COLON) return undefined;
    const end = valueEnd(text, skipSpace(text, colon + 1));
    if (end < 0) return undefined;
    const length = keyEnd - i - 1;
    for (let n = 0; n < names.length; n++) {
      const name = names[n]!;
      if (members[n] === undefined && name.length === length && text.startsWith(name, i + 1)) members[n] = { start: i, end };
    }
    i = skipSpace(text, end);
    if (text.charCodeAt(i) === COMMA) i = skipSpace(text, i + 1);
  }
  return undefined;
}

/** The text without the given members (with their separating commas). */
export function removeMembers(text: string, ranges: readonly MemberRange[]): string {
  if (ranges.length === 0) return text;
  const sorted = ranges.length > 1 ? [...ranges].sort((a, b) => a.start - b.start) : ranges;
  let out = '';
  let from = 0;
  for (const r of sorted) {
    let start = r.start;
    let end = skipSpace(text, r.end);
    if (text.charCodeAt(end) === COMMA) {
      end = end + 1; // "k":v,  → the following comma goes with it
    } else {
      // The last member: the comma before it goes instead.
      let b = start - 1;
      while (b >= from && isSpace(text.charCodeAt(b))) b--;
      if (b >= from && text.charCodeAt(b) === COMMA) start = b;
    }
    out += text.slice(from, start);
    from = end;
  }
  return out + text.slice(from);
}

/** The top-level member `key` (the first, if repeated), or undefined. */
export function topLevelMember(text: string, key: string): MemberRange | undefined {
  return findMembers(text, [key])?.members[0];
}

/** Where a member's value starts. */
export function valueStart(text: string, member: MemberRange): number {
  const colon = skipSpace(text, closingQuote(text, member.start) + 1);
  return skipSpace(text, colon + 1);
}

/** The text without the top-level member `key` (unchanged when there is none). */
export function withoutMember(text: string, key: string): string {
  const m = topLevelMember(text, key);
  return m ? removeMembers(text, [m]) : text;
}

/** `"key":<json>` members (already serialised, comma-separated) inserted first in the object. */
export function withFirstMembers(text: string, members: string): string {
  const open = text.indexOf('{');
  const empty = text.charCodeAt(skipSpace(text, open + 1)) === CLOSE_BRACE;
  return text.slice(0, open + 1) + members + (empty ? '' : ',') + text.slice(open + 1);
}

/** `members` first and the top-level member `key` removed. */
export function withFirstMembersWithout(text: string, members: string, key: string): string {
  return withFirstMembers(withoutMember(text, key), members);
}

/** The member `key`'s value replaced by `json` (added first when absent). */
export function withMemberValue(text: string, key: string, json: string): string {
  const m = topLevelMember(text, key);
  if (!m) return withFirstMembers(text, JSON.stringify(key) + ':' + json);
  return text.slice(0, valueStart(text, m)) + json + text.slice(m.end);
}

/** Where the value starting at `i` ends (exclusive); -1 on malformed text. */
function valueEnd(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === QUOTE) {
    const end = closingQuote(text, i);
    return end < 0 ? -1 : end + 1;
  }
  if (c === OPEN_BRACE || c === OPEN_BRACKET) return containerEnd(text, i);
  // A number, true, false or null.
  let j = i;
  for (;;) {
    const d = text.charCodeAt(j);
    if (d !== d || d === COMMA || d === CLOSE_BRACE || d === CLOSE_BRACKET || isSpace(d)) return j; // d !== d: NaN, end of text
    j++;
  }
}

/** The end of the object or array opening at `i` (exclusive); -1 when it never closes. */
function containerEnd(text: string, i: number): number {
  const n = text.length;
  let depth = 0;
  let pos = i;
  while (pos < n) {
    const quote = text.indexOf('"', pos);
    const stop = quote < 0 ? n : quote;
    for (let j = pos; j < stop; j++) {
      const c = text.charCodeAt(j);
      if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
      else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && --depth === 0) return j + 1;
    }
    if (quote < 0) return -1;
    const end = closingQuote(text, quote);
    if (end < 0) return -1;
    pos = end + 1;
  }
  return -1;
}

/** The first quote after `quote` not escaped by an odd run of backslashes; -1 if none. */
function closingQuote(text: string, quote: number): number {
  let end = quote;
  for (;;) {
    end = text.indexOf('"', end + 1);
    if (end < 0) return -1;
    let b = end - 1;
    while (text.charCodeAt(b) === BACKSLASH) b--;
    if ((end - 1 - b) % 2 === 0) return end;
  }
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function skipSpace(text: string, i: number): number {
  while (isSpace(text.charCodeAt(i))) i++;
  return i;
}
