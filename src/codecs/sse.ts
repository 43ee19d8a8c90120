// The single writer of server-sent event frames. Every frame carries an `event:` line (the Anthropic
// SDK drops frames without one) and one line of JSON data, and is produced as one string so it is
// written to the socket in one piece.

export function sseFrame(event: string, data: string): string {
  return 'event: ' + event + '\ndata: ' + data + '\n\n';
}

/** A comment line: a keep-alive every SSE client ignores. */
export function sseComment(text: string): string {
  return ': ' + text + '\n\n';
}
