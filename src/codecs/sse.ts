// The single writer of server-sent event frames. A Messages or Responses frame carries an `event:` line
// (the Anthropic SDK drops frames without one), a Chat Completions frame only its data line; each is one
// line of JSON data, produced as one string so it is written to the socket in one piece.

export function sseFrame(event: string, data: string): string {
  return 'event: ' + event + '\ndata: ' + data + '\n\n';
}

/**
 * The constant start of a frame, `event: <event>\ndata: ` followed by `dataHead` (the start of the
 * JSON that every frame of this kind shares). The Responses encoder builds it once per event type and
 * appends only what varies plus `SSE_FRAME_END`, instead of concatenating the same pieces per event.
 * `event` must be a plain event name (no line breaks) and `dataHead` valid JSON text up to that point:
 * both come from the encoders' own constants, never from upstream or caller data.
 */
export function sseFrameHead(event: string, dataHead: string): string {
  return 'event: ' + event + '\ndata: ' + dataHead;
}

/** What ends every frame (the blank line after the data line). */
export const SSE_FRAME_END = '\n\n';

/** A comment line: a keep-alive every SSE client ignores. */
export function sseComment(text: string): string {
  return ': ' + text + '\n\n';
}

/** A frame with only a data line: the Chat Completions stream's form (no `event:` lines). */
export function sseData(data: string): string {
  return 'data: ' + data + '\n\n';
}
