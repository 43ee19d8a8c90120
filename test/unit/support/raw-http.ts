// Raw HTTP helpers for checking exact wire frames (what the SDKs would hide).

export interface SseEvent {
  event: string | null;
  data: string;
}

/** Parses an SSE body into events; `event` is null when the frame had no `event:` line. */
export function parseSse(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .filter((frame) => frame.trim() !== '')
    .map((frame) => {
      let event: string | null = null;
      const data: string[] = [];
      for (const line of frame.split('\n')) {
        if (line.startsWith('event: ')) event = line.slice(7);
        else if (line.startsWith('data: ')) data.push(line.slice(6));
      }
      return { event, data: data.join('\n') };
    });
}

export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

/** POSTs a streamed request and returns its parsed events. */
export async function postSse(url: string, body: unknown, headers: Record<string, string> = {}): Promise<SseEvent[]> {
  const res = await postJson(url, body, headers);
  if (!res.headers.get('content-type')?.startsWith('text/event-stream')) throw new Error(`not SSE: ${res.status} ${await res.text()}`);
  return parseSse(await res.text());
}

export interface RawExchange {
  /** Everything the server wrote before closing (or before the deadline). */
  text: string;
  status: number | undefined;
  /** The body after the head, as text. */
  body: string;
  /** Set when the socket failed (e.g. ECONNRESET, EPIPE) instead of closing cleanly. */
  error: string | undefined;
  /** Bytes of the upload that went out. */
  sent: number;
}

export interface RawUpload {
  /** Bytes of body to send after `head`, in 64 KiB chunks (as chunked frames when `chunked`). */
  bytes: number;
  chunked?: boolean;
}

/**
 * One exchange on a raw socket: writes `head` (and optionally a large body, honouring backpressure),
 * then reads until the server closes, the response is complete, or `timeoutMs` passes. For the frames
 * an HTTP client library would refuse to send.
 */
export async function rawExchange(port: number, head: string | Buffer, upload?: RawUpload, timeoutMs = 10_000): Promise<RawExchange> {
  const { connect } = await import('node:net');
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let error: string | undefined;
    let sent = 0;
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('latin1');
      const headEnd = text.indexOf('\r\n\r\n');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1];
      resolve({ text, status: status === undefined ? undefined : Number(status), body: headEnd < 0 ? '' : text.slice(headEnd + 4), error, sent });
    };
    const timer = setTimeout(finish, timeoutMs);
    let uploaded = upload === undefined;
    const check = (): void => {
      if (uploaded && responseComplete(Buffer.concat(chunks).toString('latin1'))) finish();
    };
    socket.on('data', (d: Buffer) => {
      chunks.push(d);
      check();
    });
    socket.on('error', (e: NodeJS.ErrnoException) => {
      error = e.code ?? e.message;
      finish();
    });
    socket.on('close', finish);
    socket.write(head);
    if (upload === undefined) return;
    const piece = Buffer.alloc(64 * 1024, 0x61);
    const frame = upload.chunked ? Buffer.concat([Buffer.from(piece.length.toString(16) + '\r\n'), piece, Buffer.from('\r\n')]) : piece;
    const pump = (): void => {
      while (sent < upload.bytes && !done) {
        sent += piece.length;
        if (!socket.write(frame)) return void socket.once('drain', pump);
      }
      if (done) return;
      // Uploaded once the last byte has left (the write callback), not merely been queued.
      socket.write(upload.chunked ? '0\r\n\r\n' : '', () => {
        uploaded = true;
        check();
      });
    };
    pump();
  });
}

/** A response whose body is complete per its Content-Length. */
function responseComplete(text: string): boolean {
  const headEnd = text.indexOf('\r\n\r\n');
  if (headEnd < 0) return false;
  const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, headEnd))?.[1];
  return length !== undefined && text.length - headEnd - 4 >= Number(length);
}
