// Edits of a JSON object's top-level members on its text: a platform's envelope removes or replaces one
// member (`model`) and adds another (`anthropic_version`) without re-serialising the body, so the
// pass-through lane stays byte-exact for everything else and pays no second JSON.parse. The text is
// assumed valid JSON (a driver encoded it, or the gateway parsed the caller's body).

const QUOTE = 34;
const BACKSLASH = 92;

export interface Member {
  /** Index of the key's opening quote. */
  start: number;
  valueStart: number;
  /** One past the value's last character. */
  valueEnd: number;
}

/** The top-level member named `key`, or undefined. Walks member by member and stops at the key. */
export function topLevelMember(text: string, key: string): Member | undefined {
  let pos = text.indexOf('{');
  if (pos < 0) return undefined;
  pos++;
  for (;;) {
    pos = skipSpace(text, pos);
    if (text.charCodeAt(pos) !== QUOTE) return undefined; // `}` or not an object
    const keyEnd = closingQuote(text, pos);
    if (keyEnd < 0) return undefined;
    const colon = skipSpace(text, keyEnd + 1);
    const valueStart = skipSpace(text, colon + 1);
    const valueEnd = skipValue(text, valueStart);
    if (valueEnd < 0) return undefined;
    if (keyEnd - pos - 1 === key.length && text.startsWith(key, pos + 1)) return { start: pos, valueStart, valueEnd };
    pos = skipSpace(text, valueEnd);
    if (text.charCodeAt(pos) !== 44) return undefined; // no `,`: the object ended
    pos++;
  }
}

/** The text without the top-level member `key` (unchanged when there is none). */
export function withoutMember(text: string, key: string): string {
  const m = topLevelMember(text, key);
  if (!m) return text;
  const after = skipSpace(text, m.valueEnd);
  if (text.charCodeAt(after) === 44) return text.slice(0, m.start) + text.slice(skipSpace(text, after + 1));
  // The last member: drop the comma before it instead.
  let before = m.start - 1;
  while (before > 0 && isSpace(text.charCodeAt(before))) before--;
  return text.charCodeAt(before) === 44 ? text.slice(0, before) + text.slice(after) : text.slice(0, m.start) + text.slice(after);
}

/** The text with `members` (`"key":<json>`, comma-separated) first and the top-level member `key`
 * removed, in one pass over the original text: every index is found on the flat input, so the result
 * is a single concatenation that nothing here has to flatten again. */
export function withFirstMembersWithout(text: string, members: string, key: string): string {
  const open = text.indexOf('{');
  const m = topLevelMember(text, key);
  if (!m) return withFirstMembers(text, members);
  const after = skipSpace(text, m.valueEnd);
  const head = text.slice(open + 1, m.start);
  if (text.charCodeAt(after) === 44) {
    // `{<head>"key":v,<tail>}` → `{members,<head><tail>}`
    return text.slice(0, open + 1) + members + ',' + head + text.slice(skipSpace(text, after + 1));
  }
  // The last member: `{<head>,"key":v}` → `{members,<head>}`; the only one: `{"key":v}` → `{members}`.
  let before = m.start - 1;
  while (before > open && isSpace(text.charCodeAt(before))) before--;
  const kept = text.charCodeAt(before) === 44 ? text.slice(open + 1, before) : head;
  return text.slice(0, open + 1) + members + (kept.trim() === '' ? '' : ',' + kept) + text.slice(after);
}

/** `"key":<json>` members (already serialised, comma-separated) inserted first in the object. */
export function withFirstMembers(text: string, members: string): string {
  const open = text.indexOf('{');
  const next = skipSpace(text, open + 1);
  const empty = text.charCodeAt(next) === 125;
  return text.slice(0, open + 1) + members + (empty ? '' : ',') + text.slice(open + 1);
}

/** The member `key`'s value replaced by `json` (added first when absent). */
export function withMemberValue(text: string, key: string, json: string): string {
  const m = topLevelMember(text, key);
  if (!m) return withFirstMembers(text, JSON.stringify(key) + ':' + json);
  return text.slice(0, m.valueStart) + json + text.slice(m.valueEnd);
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function skipSpace(text: string, i: number): number {
  while (isSpace(text.charCodeAt(i))) i++;
  return i;
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

/** One past the end of the JSON value starting at `i`; -1 on a truncated text. */
function skipValue(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === QUOTE) {
    const end = closingQuote(text, i);
    return end < 0 ? -1 : end + 1;
  }
  if (c === 123 || c === 91) {
    let depth = 0;
    for (let j = i; j < text.length; j++) {
      const d = text.charCodeAt(j);
      if (d === QUOTE) {
        j = closingQuote(text, j);
        if (j < 0) return -1;
      } else if (d === 123 || d === 91) depth++;
      else if ((d === 125 || d === 93) && --depth === 0) return j + 1;
    }
    return -1;
  }
  // number, true, false, null
  let j = i;
  while (j < text.length) {
    const d = text.charCodeAt(j);
    if (d === 44 || d === 125 || d === 93 || isSpace(d)) break;
    j++;
  }
  return j;
}
