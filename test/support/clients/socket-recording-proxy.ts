// A loopback proxy in front of the gateway for clients that speak WebSocket mode: every upgrade is relayed to the
// gateway's own socket (the same path and headers) and every text frame each way is recorded, in order, per
// connection; a refused upgrade is relayed as the gateway answered it. Plain HTTP requests are relayed too and
// recorded by method and path, so a test can tell "done over the socket" from "fell back to HTTP".
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';

export interface SocketFrame {
  from: 'client' | 'gateway';
  /** The frame's JSON (its text when it is not JSON). */
  event: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface RecordedSocket {
  url: string;
  requestHeaders: IncomingHttpHeaders;
  /** The gateway's answer to the upgrade: 101, or the refusal's status. */
  status: number;
  frames: SocketFrame[];
  /** How the gateway's side closed (code, reason); undefined while open. */
  closed?: { code: number; reason: string };
}

export interface SocketRecordingProxy {
  url: string;
  sockets: RecordedSocket[];
  /** Plain HTTP requests (not upgrades) the client made, e.g. `POST /v1/responses`. */
  http: string[];
  close(): Promise<void>;
}

// Hop-by-hop and handshake headers the proxy's own client sets for its leg.
const HANDSHAKE = new Set(['host', 'connection', 'upgrade', 'sec-websocket-key', 'sec-websocket-version', 'sec-websocket-extensions', 'content-length']);

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Passes a close on to the other leg; the codes that never go on the wire (1005 none, 1006 dropped) as such. */
function relayClose(ws: WebSocket, code: number, reason: Buffer): void {
  if (code === 1006) ws.terminate();
  else if (code === 1005) ws.close();
  else ws.close(code, reason);
}

export async function startSocketRecordingProxy(target: string): Promise<SocketRecordingProxy> {
  const gateway = new URL(target);
  const sockets: RecordedSocket[] = [];
  const http: string[] = [];
  const open = new Set<WebSocket>();
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });

  const server = createServer((req, res) => {
    http.push(`${req.method} ${req.url}`);
    const out = httpRequest({ host: gateway.hostname, port: gateway.port, method: req.method, path: req.url, headers: { ...req.headers, host: gateway.host } }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    out.on('error', () => res.destroy());
    req.pipe(out);
  });

  server.on('upgrade', (req, socket, head) => {
    const rec: RecordedSocket = { url: req.url ?? '/', requestHeaders: req.headers, status: 0, frames: [] };
    sockets.push(rec);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (!HANDSHAKE.has(k) && typeof v === 'string') headers[k] = v;
    const upstream = new WebSocket(`ws://${gateway.host}${rec.url}`, { headers, perMessageDeflate: false });
    open.add(upstream);
    socket.on('error', () => upstream.terminate());
    upstream.on('unexpected-response', (_r, res) => {
      // The gateway refused the upgrade: the client gets that answer as it was.
      rec.status = res.statusCode ?? 0;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        const lines = [`HTTP/1.1 ${res.statusCode} ${res.statusMessage}`];
        for (const [k, v] of Object.entries(res.headers)) if (k !== 'transfer-encoding' && k !== 'connection' && v !== undefined) lines.push(`${k}: ${String(v)}`);
        lines.push(`content-length: ${body.length}`, 'connection: close');
        socket.end(Buffer.concat([Buffer.from(lines.join('\r\n') + '\r\n\r\n'), body]));
        open.delete(upstream);
      });
    });
    upstream.on('error', () => socket.destroy());
    upstream.on('open', () => {
      rec.status = 101;
      wss.handleUpgrade(req, socket, head, (client) => {
        open.add(client);
        client.on('message', (data, isBinary) => {
          rec.frames.push({ from: 'client', event: parse(data.toString()) });
          upstream.send(data, { binary: isBinary });
        });
        upstream.on('message', (data, isBinary) => {
          rec.frames.push({ from: 'gateway', event: parse(data.toString()) });
          client.send(data, { binary: isBinary });
        });
        client.on('close', (code, reason) => relayClose(upstream, code, reason));
        upstream.on('close', (code, reason) => {
          rec.closed = { code, reason: reason.toString() };
          relayClose(client, code, reason);
        });
        client.on('error', () => upstream.terminate());
      });
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    sockets,
    http,
    close: async () => {
      for (const ws of open) ws.terminate();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
