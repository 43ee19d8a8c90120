// The two forms of `streamGenerateContent` (gemini.md §8): with `?alt=sse` a server-sent event stream
// of `data:` lines (no `event:` name: Google's SDKs skip frames that have one), without it one JSON
// array whose elements arrive as they are made. Both carry the same GenerateContentResponse chunks.

export type StreamForm = 'sse' | 'json-array';

/** SSE frames end as Google's do. */
export const SSE_END = '\r\n\r\n';

/** A comment line: every SSE client ignores it. */
export const SSE_KEEP_ALIVE = ': keep-alive' + SSE_END;

/** Whitespace is valid between JSON array elements (and before the array). */
export const ARRAY_KEEP_ALIVE = '\n';

export function keepAliveFor(form: StreamForm): string {
  return form === 'sse' ? SSE_KEEP_ALIVE : ARRAY_KEEP_ALIVE;
}

/** Wraps chunk JSON texts into the stream's frames. */
export class StreamFraming {
  private elements = 0;
  private closed = false;

  constructor(readonly form: StreamForm) {}

  /** One chunk (a GenerateContentResponse or an `{"error":…}` object) as the text to write. */
  chunk(json: string): string {
    if (this.form === 'sse') return 'data: ' + json + SSE_END;
    return (this.elements++ === 0 ? '[' : ',\r\n') + json;
  }

  /** What ends the stream: nothing for SSE (the connection closing ends it), `]` for the array. */
  close(): string {
    if (this.closed || this.form === 'sse') return '';
    this.closed = true;
    return this.elements === 0 ? '[]' : ']';
  }

  /** A chunk and the end together (the stream's terminal frame). */
  last(json: string): string {
    return this.chunk(json) + this.close();
  }

  keepAlive(): string {
    return keepAliveFor(this.form);
  }
}
