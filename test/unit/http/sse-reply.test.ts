// SseReply on a real socket: the status line and headers leave in the same socket write as the frames
// of the turn that opened the stream (one syscall, one segment, one client wake-up), still leave at
// the end of that turn when it wrote no frame, and heartbeats still fire during silence.
import { createServer, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SseReply } from '../../../src/http/sse-reply.js';

let server: Server | undefined;

afterEach(async () => {
  if (server) await new Promise<void>((resolve) => server!.close(() => resolve()));
  server = undefined;
});

type WriteGeneric = (writev: boolean, data: unknown, encoding: string, cb: (err?: Error) => void) => void;

/** Serve one request with `handler`; record what each write the socket makes to the kernel carries
 * (net.Socket's `_writeGeneric` runs once per `write`/`writev` of the handle: one syscall each). */
async function serve(handler: (res: ServerResponse) => void): Promise<{ port: number; writes: string[] }> {
  const writes: string[] = [];
  const text = (chunk: unknown): string => (typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('latin1'));
  server = createServer((_req, res) => {
    const socket = res.socket as Socket & { _writeGeneric: WriteGeneric };
    const original = socket._writeGeneric.bind(socket);
    socket._writeGeneric = (writev, data, encoding, cb) => {
      writes.push(writev ? (data as { chunk: unknown }[]).map((d) => text(d.chunk)).join('') : text(data));
      original(writev, data, encoding, cb);
    };
    handler(res);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, writes };
}

/** A raw HTTP/1.1 client: the request, then everything received until `until` matches (bounded). */
function fetchRaw(port: number, until: RegExp, timeoutMs = 5000): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = connect(port, '127.0.0.1');
    let text = '';
    const timer = setTimeout(() => {
      sock.destroy();
      reject(new Error(`timed out; received: ${JSON.stringify(text)}`));
    }, timeoutMs);
    sock.setEncoding('latin1');
    sock.on('data', (d: string) => {
      text += d;
      if (until.test(text)) {
        clearTimeout(timer);
        sock.destroy();
        resolve(text);
      }
    });
    sock.on('error', reject);
    sock.write('GET / HTTP/1.1\r\nhost: x\r\n\r\n');
  });
}

describe('SseReply', () => {
  it('sends the headers in the same socket write as the first turn of frames', async () => {
    const { port, writes } = await serve((res) => {
      const sse = new SseReply(res, 10_000);
      sse.open({ 'x-test': 'yes' }, () => undefined);
      sse.write('event: a\ndata: {"n":1}\n\n');
      sse.write('event: b\ndata: {"n":2}\n\n');
      setTimeout(() => {
        sse.write('event: c\ndata: {"n":3}\n\n');
        sse.end();
      }, 20);
    });
    const text = await fetchRaw(port, /\r\n0\r\n\r\n$/);
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(text).toContain('x-test: yes');
    expect(text).toContain('content-type: text/event-stream; charset=utf-8');
    // The first write carries the status line, the headers and both frames of the opening turn.
    expect(writes[0]).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(writes[0]).toContain('data: {"n":1}');
    expect(writes[0]).toContain('data: {"n":2}');
    expect(writes[0]).not.toContain('data: {"n":3}');
    expect(writes.filter((w) => w.startsWith('HTTP/1.1'))).toHaveLength(1);
    // The last frame and the chunked terminator follow; nothing is lost or duplicated.
    expect(text.match(/data: /g)).toHaveLength(3);
    expect(writes.slice(1).join('')).toContain('data: {"n":3}');
  });

  it('relayed bytes (writeBytes) keep their order with frames, leave with the headers, and the last ones with the terminator', async () => {
    const { port, writes } = await serve((res) => {
      const sse = new SseReply(res, 10_000);
      sse.open({}, () => undefined);
      sse.write('event: a\ndata: {"n":1}\n\n');
      sse.writeBytes(Buffer.from('event: b\ndata: {"n":2}\n\nevent: c\ndata: {"n":3}\n\n'));
      sse.write('event: d\ndata: {"n":4}\n\n');
      setTimeout(() => {
        sse.writeBytes(Buffer.from('event: e\ndata: {"n":5}\n\n'));
        // The upstream's end arrives before this turn's flush: the last bytes and the terminator together.
        sse.end();
      }, 20);
    });
    const text = await fetchRaw(port, /\r\n0\r\n\r\n$/);
    const frames = text.match(/data: \{"n":\d\}/g);
    expect(frames).toEqual(['data: {"n":1}', 'data: {"n":2}', 'data: {"n":3}', 'data: {"n":4}', 'data: {"n":5}']);
    expect(writes).toHaveLength(2);
    expect(writes[0]).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(writes[0]).toContain('data: {"n":4}');
    expect(writes[1]).toContain('data: {"n":5}');
    expect(writes[1]).toMatch(/\r\n0\r\n\r\n$/);
  });

  it('sends the headers at the end of the opening turn when that turn wrote no frame', async () => {
    let sseRef: SseReply | undefined;
    const { port, writes } = await serve((res) => {
      sseRef = new SseReply(res, 10_000);
      sseRef.open({}, () => undefined);
    });
    try {
      const text = await fetchRaw(port, /\r\n\r\n$/);
      expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*content-type: text\/event-stream/);
      expect(writes).toHaveLength(1);
      expect(writes[0]).not.toContain('data:');
    } finally {
      sseRef?.end();
    }
  });

  it('still calls for a heartbeat during upstream silence', async () => {
    const { port } = await serve((res) => {
      const sse = new SseReply(res, 100);
      let pings = 0;
      sse.open({}, () => {
        pings++;
        sse.write(': ping\n\n');
        if (pings === 2) sse.end();
      });
    });
    const text = await fetchRaw(port, /\r\n0\r\n\r\n$/);
    expect(text.match(/: ping/g)).toHaveLength(2);
  });
});
