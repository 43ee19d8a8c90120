// JSON-FLOOR: FLOOR plus what any gateway that reads JSON must do, done once and nothing else. Each
// request body is parsed with JSON.parse, its `model` replaced (through `models`, as a gateway maps an
// alias), and re-serialised; a non-streamed answer is parsed and re-serialised whole; a stream has every
// SSE `data:` line parsed and re-serialised (`[DONE]` passes as it is). It is the fair floor for a
// gateway that parses and validates JSON once: the gap between FLOOR and JSON-FLOOR is the price of
// JSON itself, the gap above JSON-FLOOR is ours.
//
//   node --import tsx bench/json-floor-proxy.ts --port 0 --upstream http://127.0.0.1:PORT \
//     [--connections 128] [--models '{"alias":"upstream-model"}']
//
// prints one JSON line `{"ready":true,"port":N,...}` on stdout when listening.
import http from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import { pathToFileURL } from 'node:url';
import { Pool, type Dispatcher } from 'undici';
import { parseFlags } from './cli-flags.js';
import { announceReady, closeServer, listen } from './lib/serve.js';

export interface JsonFloorProxyOptions {
  host?: string;
  port?: number;
  /** Upstream origin, e.g. http://127.0.0.1:9000 */
  upstream: string;
  /** undici Pool connections (the gateway's default is 128). */
  connections?: number;
  /** Model name the caller sends → model name sent upstream; names not listed are kept. */
  models?: Record<string, string>;
}

export interface JsonFloorProxy {
  url: string;
  port: number;
  close(): Promise<void>;
}

// Hop-by-hop headers (RFC 9110 §7.6.1) and the ones undici sets itself.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'host', 'expect']);

/** `keepLength: false` for a body re-serialised here (undici and node:http compute the new length). */
function forwardable(headers: Record<string, string | string[] | undefined>, keepLength: boolean): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined && !HOP_BY_HOP.has(name) && (keepLength || name !== 'content-length')) out[name] = value;
  }
  return out;
}

/** Re-serialises every `data:` line of the SSE text that has arrived; a partial last line waits. */
export class SseLineRewriter {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';

  /** The rewritten complete lines of `chunk` (with what was pending before it). */
  push(chunk: Buffer): string {
    const text = this.pending + this.decoder.write(chunk);
    const end = text.lastIndexOf('\n') + 1;
    this.pending = text.slice(end);
    return end === 0 ? '' : rewriteLines(text.slice(0, end));
  }

  /** Whatever is left at the end of the stream. */
  end(): string {
    const rest = this.pending + this.decoder.end();
    this.pending = '';
    return rest === '' ? '' : rewriteLines(rest);
  }
}

function rewriteLines(text: string): string {
  let out = '';
  let start = 0;
  while (start < text.length) {
    let nl = text.indexOf('\n', start);
    if (nl === -1) nl = text.length;
    const line = text.slice(start, nl);
    // Gemini ends its lines with CRLF: the CR is kept.
    const cr = line.endsWith('\r');
    if (line.startsWith('data: ') && line !== 'data: [DONE]') out += 'data: ' + JSON.stringify(JSON.parse(line.slice(6))) + (cr ? '\r' : '');
    else out += line;
    if (nl < text.length) out += '\n';
    start = nl + 1;
  }
  return out;
}

export async function startJsonFloorProxy(options: JsonFloorProxyOptions): Promise<JsonFloorProxy> {
  const models = options.models ?? {};
  const pool = new Pool(options.upstream, {
    connections: options.connections ?? 128,
    pipelining: 1,
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 600_000,
  });

  const server = http.createServer((req, res) => {
    const method = req.method ?? 'GET';
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let body: string | null = null;
      if (chunks.length > 0) {
        let parsed: Record<string, unknown>;
        try {
          parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
        } catch (err) {
          res.writeHead(400, { 'content-type': 'text/plain' });
          res.end(`json floor proxy: request body is not JSON: ${(err as Error).message}`);
          return;
        }
        if (typeof parsed.model === 'string') parsed.model = models[parsed.model] ?? parsed.model;
        body = JSON.stringify(parsed);
      }
      let controller: Dispatcher.DispatchController | undefined;
      let done = false;
      res.on('close', () => {
        if (!done) controller?.abort(new Error('client went away'));
      });
      res.on('drain', () => controller?.resume());
      let mode: 'json' | 'sse' | 'bytes' = 'bytes';
      let status = 0;
      let headers: Record<string, string | string[]> = {};
      const answer: Buffer[] = [];
      let sse: SseLineRewriter | undefined;
      const fail = (err: Error) => {
        done = true;
        if (!res.headersSent) {
          res.writeHead(502, { 'content-type': 'text/plain' });
          res.end(`json floor proxy: ${err.message}`);
        } else {
          res.destroy(err);
        }
      };
      // Gemini names the model in the path: the alias is mapped there too.
      const path = (req.url ?? '/').replace(/\/models\/([^/:]+):/, (whole, alias: string) => (models[alias] ? `/models/${models[alias]}:` : whole));
      pool.dispatch(
        { method: method as Dispatcher.HttpMethod, path, headers: forwardable(req.headers, false), body },
        {
          onRequestStart(c) {
            controller = c;
          },
          onResponseStart(_c, statusCode, upstreamHeaders) {
            const type = String(upstreamHeaders['content-type'] ?? '');
            mode = type.startsWith('application/json') ? 'json' : type.startsWith('text/event-stream') ? 'sse' : 'bytes';
            status = statusCode;
            headers = forwardable(upstreamHeaders, mode === 'bytes');
            // A JSON answer is sent when it has been read whole (its length changes).
            if (mode !== 'json') res.writeHead(status, headers);
            if (mode === 'sse') sse = new SseLineRewriter();
          },
          onResponseData(c, chunk) {
            if (mode === 'json') {
              answer.push(chunk);
              return;
            }
            let out: string | Buffer = chunk;
            if (mode === 'sse') {
              try {
                out = sse!.push(chunk);
              } catch (err) {
                c.abort(err as Error);
                return;
              }
            }
            if (out.length > 0 && !res.write(out)) c.pause();
          },
          onResponseEnd() {
            done = true;
            if (mode === 'json') {
              let text: string;
              try {
                text = JSON.stringify(JSON.parse(Buffer.concat(answer).toString('utf8')));
              } catch (err) {
                fail(new Error(`upstream answer is not JSON: ${(err as Error).message}`));
                return;
              }
              headers['content-length'] = String(Buffer.byteLength(text));
              res.writeHead(status, headers);
              res.end(text);
              return;
            }
            if (mode !== 'sse') {
              res.end();
              return;
            }
            try {
              res.end(sse!.end());
            } catch (err) {
              res.destroy(err as Error);
            }
          },
          onResponseError(_c, err) {
            fail(err);
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
    process.stderr.write('usage: json-floor-proxy --upstream http://127.0.0.1:PORT [--port N] [--connections N] [--models JSON]\n');
    process.exit(2);
  }
  const proxy = await startJsonFloorProxy({
    host: flags.get('host') ?? '127.0.0.1',
    port: Number(flags.get('port') ?? 0),
    upstream,
    connections: Number(flags.get('connections') ?? 128),
    models: flags.has('models') ? (JSON.parse(flags.get('models')!) as Record<string, string>) : {},
  });
  announceReady('json-floor-proxy', proxy.port, () => proxy.close());
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) void main();
