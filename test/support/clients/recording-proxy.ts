// A loopback reverse proxy in front of the gateway that records every exchange a real client makes: method, path,
// status, headers, the request body and the response text (SSE included). The gateway itself is untouched; this
// is how the client tests see "what the gateway answered" (4xx, error events) next to what the upstream received.
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as zlib from 'node:zlib';

export interface GatewayExchange {
  method: string;
  /** Request target as the client sent it, query included (`/v1/messages?beta=true`). */
  url: string;
  requestHeaders: IncomingHttpHeaders;
  /** Parsed JSON body, raw text if not JSON, undefined when empty. */
  requestBody: unknown;
  /** 0 when the gateway could not be reached or the exchange broke before headers. */
  status: number;
  responseHeaders: IncomingHttpHeaders;
  /** Decoded response text (first 2 MiB). */
  responseText: string;
  error?: string;
  startedAt: number;
  durationMs: number;
}

export interface RecordingProxy {
  url: string;
  exchanges: GatewayExchange[];
  close(): Promise<void>;
}

const RESPONSE_LIMIT = 2 * 1024 * 1024;

/** Bytes as text, undoing a content-encoding if there is one (recording only: bytes are forwarded untouched). */
function decode(bytes: Buffer, encoding: string | string[] | undefined): string {
  const enc = String(encoding ?? '').trim().toLowerCase();
  try {
    if (enc === 'gzip' || enc === 'x-gzip') return zlib.gunzipSync(bytes).toString('utf8');
    if (enc === 'deflate') return zlib.inflateSync(bytes).toString('utf8');
    if (enc === 'br') return zlib.brotliDecompressSync(bytes).toString('utf8');
    const zstd = (zlib as unknown as { zstdDecompressSync?: (b: Buffer) => Buffer }).zstdDecompressSync; // Node ≥22.15
    if (enc === 'zstd' && zstd) return zstd(bytes).toString('utf8');
  } catch (err) {
    return `<${enc} body that did not decode: ${(err as Error).message}>`;
  }
  return bytes.toString('utf8');
}

function parse(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const upstream = new URL(target);
  const exchanges: GatewayExchange[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const ex: GatewayExchange = {
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        requestHeaders: req.headers,
        requestBody: parse(decode(body, req.headers['content-encoding'])),
        status: 0,
        responseHeaders: {},
        responseText: '',
        startedAt: Date.now(),
        durationMs: 0,
      };
      exchanges.push(ex);
      const headers = { ...req.headers, host: upstream.host };
      const out = httpRequest(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers },
        (up) => {
          ex.status = up.statusCode ?? 0;
          ex.responseHeaders = up.headers;
          res.writeHead(up.statusCode ?? 502, up.headers);
          const got: Buffer[] = [];
          let size = 0;
          const settle = () => {
            ex.responseText = decode(Buffer.concat(got), up.headers['content-encoding']);
            ex.durationMs = Date.now() - ex.startedAt;
          };
          up.on('data', (d: Buffer) => {
            if (size < RESPONSE_LIMIT) {
              got.push(d);
              size += d.length;
            }
            res.write(d);
          });
          up.on('end', () => {
            settle();
            res.end();
          });
          up.on('close', () => {
            if (!ex.durationMs) settle();
          });
          up.on('error', (err) => {
            ex.error = `response broke: ${err.message}`;
            res.destroy();
          });
        },
      );
      out.on('error', (err) => {
        ex.error = `gateway unreachable or reset: ${err.message}`;
        ex.durationMs = Date.now() - ex.startedAt;
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `recording proxy: ${err.message}` } }));
      });
      res.on('close', () => {
        if (!res.writableFinished) out.destroy();
      });
      out.end(body);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exchanges,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Anything a client tried to reach outside loopback, through HTTP(S)_PROXY pointing at the trap. */
export interface EgressAttempt {
  method: string;
  target: string;
}

export interface EgressTrap {
  url: string;
  attempts: EgressAttempt[];
  close(): Promise<void>;
}

/**
 * A forward proxy that refuses everything and records what was asked (CONNECT host:443 or an absolute URL).
 * Clients get HTTPS_PROXY/HTTP_PROXY pointing here and NO_PROXY=127.0.0.1,localhost, so any non-loopback traffic
 * they attempt (telemetry, update checks, plugin sync) is both blocked and visible to the test.
 */
export async function startEgressTrap(): Promise<EgressTrap> {
  const attempts: EgressAttempt[] = [];
  const server = createServer((req, res) => {
    attempts.push({ method: req.method ?? 'GET', target: req.url ?? '' });
    res.writeHead(403, { 'content-type': 'text/plain' });
    res.end('switchyard test: egress refused\n');
  });
  server.on('connect', (req, socket) => {
    attempts.push({ method: 'CONNECT', target: req.url ?? '' });
    socket.on('error', () => {});
    socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    attempts,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
