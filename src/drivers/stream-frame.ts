// A stream frame's `data` → the event object every stream decoder expects. A frame that is not a JSON
// object ends the stream with an error naming (the start of) what the upstream sent.

/** The frame's object, or — when it is not one — the message of the error that ends the stream. */
export function parseStreamFrame<T extends object>(data: string): T | string {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return 'upstream sent a stream frame that is not JSON: ' + excerpt(data);
  }
  if (value === null || typeof value !== 'object') return 'upstream sent a stream frame that is not an object: ' + excerpt(data);
  return value as T;
}

function excerpt(data: string): string {
  return data.length > 200 ? data.slice(0, 200) + '…' : data;
}

/**
 * A cheap test, for the pass-through relays, that a frame's data is a JSON object: it starts with `{`
 * and ends with `}` (surrounding whitespace aside). It catches what breaks in practice — plain text,
 * HTML, `[DONE]`-style markers, a frame cut mid-object — without parsing every frame of the fast lane;
 * a frame that passes it but is still not JSON reaches the caller as the upstream sent it.
 */
export function looksLikeJsonObject(data: string): boolean {
  let i = 0;
  let j = data.length - 1;
  while (i < j && isSpace(data.charCodeAt(i))) i++;
  while (j > i && isSpace(data.charCodeAt(j))) j--;
  return i < j && data.charCodeAt(i) === 0x7b && data.charCodeAt(j) === 0x7d;
}

/** The message of the error that ends a stream whose frame is not a JSON object. */
export function malformedFrameMessage(data: string): string {
  return 'upstream sent a stream frame that is not JSON: ' + excerpt(data);
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}
