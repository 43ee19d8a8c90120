// A caller-chosen text (a wildcard route's model name) as a response header value: bounded, so a long
// name cannot overflow the caller's own HTTP client (fetch refuses oversized headers), and limited to
// the characters Node may write in a header (anything else would throw while answering).
const MAX_HEADER_TEXT = 256;
const NOT_HEADER_SAFE = /[^\t\x20-\x7e]/g;

export function headerText(text: string): string {
  const bounded = text.length > MAX_HEADER_TEXT ? text.slice(0, MAX_HEADER_TEXT) + '...' : text;
  NOT_HEADER_SAFE.lastIndex = 0;
  return NOT_HEADER_SAFE.test(bounded) ? bounded.replace(NOT_HEADER_SAFE, '?') : bounded;
}
