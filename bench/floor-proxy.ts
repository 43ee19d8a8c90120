// FLOOR: the thinnest Node forwarder there is — a node:http server that passes the request bytes to one
// upstream origin through an undici Pool (Pool.dispatch, no stream objects) and relays the response
// bytes chunk by chunk with backpressure, parsing nothing. It is the cost of "one more Node hop" that
// any gateway pays; the gateway's targets are ratios to it. (A first version streamed the request body
// into undici with Pool.stream: measurably slower on non-streamed requests, so not the floor.)
// Its Pool settings mirror the gateway's (src/drivers/http-client.ts): pipelining 1, same keep-alive.
//
//   node --import tsx bench/floor-proxy.ts --port 0 --upstream http://127.0.0.1:PORT [--connections 128]
//
// prints one JSON line `{"ready":true,"port":N,...}` on stdout when listening.
import http from 'node:http';
import { pathToFileURL } from 'node:url';
import { Pool, type Dispatcher } from 'undici';
import { parseFlags } from './cli-flags.js';
import { announceReady, closeServer, listen } from './lib/serve.js';

export interface FloorProxyOptions {
  host?: string;
  port?: number;
  /** Upstream origin, e.g. http://127.0.0.1:9000 */
  upstream: string;
  /** undici Pool connections (the gateway's default is 128). */
  connections?: number;
}

export interface FloorProxy {
  url: string;
  port: number;
  close(): Promise<void>;
}

// Hop-by-hop headers (RFC 9110 §7.6.1) and the ones undici sets itself.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'host', 'expect']);

export function forwardable(headers: http.IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  }
  return out;
}

export async function startFloorProxy(options: FloorProxyOptions): Promise<FloorProxy> {
  const pool = new Pool(options.upstream, {
    connections: options.connections ?? 128,
    pipelining: 1,
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 600_000,
  });

  const server = http.createServer((req, res) => {
    const method = req.method ?? 'GET';
    // The request body is collected as bytes (a JSON API's bodies are small; undici sends a Buffer
    // with less machinery than a stream), never parsed.
    let first: Buffer | undefined;
    let rest: Buffer[] | undefined;
    req.on('data', (chunk: Buffer) => {
      if (!first) first = chunk;
      else (rest ??= [first]).push(chunk);
    });
    req.on('end', () => {
      const body = rest ? Buffer.concat(rest) : (first ?? null);
      let controller: Dispatcher.DispatchController | undefined;
      let done = false;
      res.on('close', () => {
        if (!done) controller?.abort(new Error('client went away'));
      });
      res.on('drain', () => controller?.resume());
      pool.dispatch(
        { method: method as Dispatcher.HttpMethod, path: req.url ?? '/', headers: forwardable(req.headers), body },
        {
          onRequestStart(c) {
            controller = c;
          },
          onResponseStart(_c, statusCode, headers) {
            res.writeHead(statusCode, forwardable(headers));
          },
          // Response bytes go out as they come, with backpressure.
          onResponseData(c, chunk) {
            if (!res.write(chunk)) c.pause();
          },
          onResponseEnd() {
            done = true;
            res.end();
          },
          onResponseError(_c, err) {
            done = true;
            if (!res.headersSent) {
              res.writeHead(502, { 'content-type': 'text/plain' });
              res.end(`floor proxy: ${err.message}`);
            } else {
              res.destroy(err);
            }
          },
        },
      );
    });
  });
  const { url, port } = await listen(server, options.host ?? '127.0.0.1', options.port ?? 0);
  return {
    url,
    port,
    close: async () => {
      await closeServer(server);
      await pool.close().catch(() => pool.destroy());
    },
  };
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2));
  const upstream = flags.get('upstream');
  if (!upstream) {
    process.stderr.write('usage: floor-proxy --upstream http://127.0.0.1:PORT [--port N] [--connections N]\n');
    process.exit(2);
  }
  const proxy = await startFloorProxy({
    host: flags.get('host') ?? '127.0.0.1',
    port: Number(flags.get('port') ?? 0),
    upstream,
    connections: Number(flags.get('connections') ?? 128),
  });
  announceReady('floor-proxy', proxy.port, () => proxy.close());
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) void main();
