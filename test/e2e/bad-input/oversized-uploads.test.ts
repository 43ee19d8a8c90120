// Uploads over the body limit, many in a row, through raw sockets, node:http and fetch: every attempt
// must read the 413 in its door's envelope, whether the caller uploads fast or slowly, by
// Content-Length or chunked, and whether it asked for `Connection: close` (Node would otherwise close
// right after the answer, mid-upload, and the caller gets EPIPE or a reset instead of the 413).
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/gateway-harness.js';

const MB = 1024 * 1024;
const PIECE = 64 * 1024;

interface Attempt {
  status: number | undefined;
  body: string;
  /** A socket or client error that came before the answer was read. */
  error: string | undefined;
}

interface Upload {
  port: number;
  path: string;
  bytes: number;
  chunked: boolean;
  /** Pause between 64 KiB pieces (0: as fast as the socket takes them). */
  pauseMs: number;
  close?: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A raw socket: the head, then the body piece by piece, reading whatever comes back meanwhile. */
function rawUpload(u: Upload): Promise<Attempt> {
  return new Promise((resolve) => {
    const socket = connect(u.port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let error: string | undefined;
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('latin1');
      const headEnd = text.indexOf('\r\n\r\n');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1];
      resolve({ status: status === undefined ? undefined : Number(status), body: headEnd < 0 ? '' : text.slice(headEnd + 4), error });
    };
    const timer = setTimeout(finish, 60_000);
    socket.on('data', (d: Buffer) => chunks.push(d));
    let uploaded = false;
    socket.on('error', (e: NodeJS.ErrnoException) => {
      // A caller that reads only once its upload is over (most do) loses the answer to an error
      // during the upload, even when the answer's bytes had already arrived.
      if (!uploaded || !answerComplete(chunks)) error = e.code ?? e.message;
      finish();
    });
    // The gateway closing its side before the upload is over cuts it short: a client that writes its
    // body first and reads afterwards (Python's http.client, curl) fails there.
    let allQueued = false;
    socket.on('end', () => {
      if (!allQueued) error ??= 'closed during the upload';
    });
    socket.on('close', finish);
    const framing = u.chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${u.bytes}`;
    socket.write(`POST ${u.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${u.close ? 'Connection: close\r\n' : ''}${framing}\r\n\r\n`);
    const piece = Buffer.alloc(PIECE, 0x61);
    const frame = u.chunked ? Buffer.concat([Buffer.from(PIECE.toString(16) + '\r\n'), piece, Buffer.from('\r\n')]) : piece;
    void (async () => {
      let sent = 0;
      while (sent < u.bytes && !done) {
        sent += PIECE;
        const flowing = socket.write(frame);
        if (sent >= u.bytes && !u.chunked) allQueued = true;
        if (!flowing) await new Promise((r) => socket.once('drain', r));
        if (u.pauseMs > 0 && sent < u.bytes) await sleep(u.pauseMs);
      }
      if (done) return;
      allQueued = true;
      // Like most clients: the answer is read to its end once the upload is over.
      socket.write(u.chunked ? '0\r\n\r\n' : '', () => {
        uploaded = true;
        const wait = setInterval(() => {
          if (answerComplete(chunks)) {
            clearInterval(wait);
            finish();
          }
        }, 5);
        socket.once('close', () => clearInterval(wait));
      });
    })();
  });
}

function answerComplete(chunks: Buffer[]): boolean {
  const text = Buffer.concat(chunks).toString('latin1');
  const headEnd = text.indexOf('\r\n\r\n');
  if (headEnd < 0) return false;
  const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, headEnd))?.[1];
  return length !== undefined && text.length - headEnd - 4 >= Number(length);
}

/** node:http's client, which writes the whole body and reads the answer as it comes. */
function nodeHttpUpload(u: Upload): Promise<Attempt> {
  return new Promise((resolve) => {
    // node:http reads the answer while it uploads, and stops uploading once the answer has ended.
    let settled = false;
    const settle = (a: Attempt): void => {
      if (!settled) {
        settled = true;
        resolve(a);
      }
    };
    const headers: Record<string, string | number> = { 'content-type': 'application/json' };
    if (!u.chunked) headers['content-length'] = u.bytes;
    if (u.close) headers.connection = 'close';
    const req = httpRequest({ host: '127.0.0.1', port: u.port, path: u.path, method: 'POST', headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => settle({ status: res.statusCode, body, error: undefined }));
      res.on('error', (e: NodeJS.ErrnoException) => settle({ status: res.statusCode, body, error: e.code ?? e.message }));
    });
    req.on('error', (e: NodeJS.ErrnoException) => settle({ status: undefined, body: '', error: e.code ?? e.message }));
    const piece = Buffer.alloc(PIECE, 0x61);
    void (async () => {
      let sent = 0;
      while (sent < u.bytes && !settled) {
        sent += PIECE;
        if (!req.write(piece)) await Promise.race([new Promise((r) => req.once('drain', r)), sleep(1000)]);
        if (u.pauseMs > 0) await sleep(u.pauseMs);
      }
      req.end();
    })();
  });
}

/** fetch (undici): a whole buffer (Content-Length) or a stream (chunked). */
async function fetchUpload(u: Upload, url: string): Promise<Attempt> {
  let sent = 0;
  const piece = new Uint8Array(PIECE).fill(0x61);
  const body = u.chunked
    ? new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (sent >= u.bytes) return controller.close();
          if (u.pauseMs > 0) await sleep(u.pauseMs);
          sent += PIECE;
          controller.enqueue(piece);
        },
      })
    : new Uint8Array(u.bytes).fill(0x61);
  try {
    const res = await fetch(url + u.path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(u.close ? { connection: 'close' } : {}) },
      body,
      duplex: 'half',
    } as RequestInit);
    return { status: res.status, body: await res.text(), error: undefined };
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    return { status: undefined, body: '', error: cause?.code ?? cause?.message ?? String(err) };
  }
}

type Kind = 'raw' | 'raw, Connection: close' | 'node:http' | 'node:http, Connection: close' | 'fetch';
const KINDS: Kind[] = ['raw', 'raw, Connection: close', 'node:http', 'node:http, Connection: close', 'fetch'];

function attempt(kind: Kind, u: Upload, url: string): Promise<Attempt> {
  switch (kind) {
    case 'raw':
      return rawUpload(u);
    case 'raw, Connection: close':
      return rawUpload({ ...u, close: true });
    case 'node:http':
      return nodeHttpUpload(u);
    case 'node:http, Connection: close':
      return nodeHttpUpload({ ...u, close: true });
    case 'fetch':
      return fetchUpload(u, url);
  }
}

function expectDoorEnvelope(path: string, a: Attempt, label: string): void {
  expect(a.error, label).toBeUndefined();
  expect(a.status, label).toBe(413);
  const body = JSON.parse(a.body) as { type?: string; error: { type: string; code?: string; message: string } };
  expect(body.error.message, label).toMatch(new RegExp(`^request body is larger than this gateway accepts \\((${MB}|${32 * MB}) bytes\\)$`));
  if (path === '/v1/messages') {
    expect(body.type, label).toBe('error');
    expect(body.error.type, label).toBe('request_too_large');
  } else {
    expect(body.error.type, label).toBe('invalid_request_error');
    expect(body.error.code, label).toBe('request_too_large');
  }
}

/** Ten attempts per door, alternating Content-Length and chunked, cycling through the clients. */
async function series(h: Harness, path: string, bytes: number, pauseMs: number): Promise<void> {
  const port = Number(new URL(h.url).port);
  const before = h.upstream.received.length;
  for (let i = 0; i < 10; i++) {
    const kind = KINDS[i % KINDS.length]!;
    const chunked = i % 2 === 1;
    const label = `${path} attempt ${i + 1}: ${kind}, ${chunked ? 'chunked' : 'Content-Length'}`;
    expectDoorEnvelope(path, await attempt(kind, { port, path, bytes, chunked, pauseMs }, h.url), label);
  }
  expect(h.upstream.received.length).toBe(before);
}

describe('a 50 MB upload, as fast as the socket takes it, ten times per door (default 32 MiB limit)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.close();
  });
  it.each(['/v1/messages', '/v1/responses'])('%s', (path) => series(h, path, 50 * MB, 0), 120_000);
});

describe('a slow uploader (about 3 MB/s), ten times per door (1 MiB limit, 3 MiB sent)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ config: () => ({ server: { host: '127.0.0.1', port: 0, heartbeat_ms: 10_000, body_limit_bytes: MB } }) });
  });
  afterAll(async () => {
    await h?.close();
  });
  it.each(['/v1/messages', '/v1/responses'])('%s', (path) => series(h, path, 3 * MB, 20), 120_000);
});

describe('the drain is bounded', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ config: () => ({ server: { host: '127.0.0.1', port: 0, heartbeat_ms: 10_000, body_limit_bytes: MB } }) });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('a caller that never stops uploading reads the 413, then the gateway closes the connection', async () => {
    const port = Number(new URL(h.url).port);
    const outcome = await new Promise<{ text: string; sent: number; closedBy: string }>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      let text = '';
      let sent = 0;
      let done = false;
      const finish = (closedBy: string): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        socket.destroy();
        resolve({ text, sent, closedBy });
      };
      const timer = setTimeout(() => finish('timeout'), 60_000);
      socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
      socket.on('error', () => finish('gateway'));
      socket.on('close', () => finish('gateway'));
      socket.write('POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n');
      const piece = Buffer.alloc(PIECE, 0x61);
      const frame = Buffer.concat([Buffer.from(PIECE.toString(16) + '\r\n'), piece, Buffer.from('\r\n')]);
      const pump = (): void => {
        // Stop at 1 GiB: far past the gateway's cap, so reaching it means the gateway never closed.
        while (!done && sent < 1024 * MB) {
          sent += PIECE;
          if (!socket.write(frame)) return void socket.once('drain', pump);
        }
        if (!done) finish('client');
      };
      pump();
    });
    expect(outcome.text).toMatch(/^HTTP\/1\.1 413 /);
    expect(outcome.closedBy).toBe('gateway');
    // Kept reading well past the limit (its cap is 256 MiB past the answer), then closed.
    expect(outcome.sent).toBeGreaterThan(256 * MB);
    expect(outcome.sent).toBeLessThan(320 * MB);
  }, 90_000);
});
