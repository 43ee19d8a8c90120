// A plain `ws` client for the gateway's WebSocket mode, with its events queued in arrival order and its
// close (code, reason) awaited: the lifetime and fault tests need the frames and close codes themselves,
// which the SDK's ResponsesWS hides.
import WebSocket, { type ClientOptions } from 'ws';

export type SocketEvent = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed']);

export interface TestSocket {
  ws: WebSocket;
  /** Every event received so far, in order (what `next` has handed out included). */
  all: SocketEvent[];
  send(event: Record<string, unknown>): void;
  next(timeoutMs?: number): Promise<SocketEvent>;
  /** Events up to and including the response's terminal event, or a refusal (`error` with a status). */
  untilTerminal(timeoutMs?: number): Promise<SocketEvent[]>;
  closed: Promise<{ code: number; reason: string; at: number }>;
}

/** Opens `GET /v1/responses` as a WebSocket; resolves once it is open. */
export function openSocket(baseUrl: string, key = 'caller-key', options: ClientOptions = {}): Promise<TestSocket> {
  const ws = new WebSocket(baseUrl.replace(/^http/, 'ws') + '/v1/responses', { headers: { authorization: `Bearer ${key}` }, ...options });
  const all: SocketEvent[] = [];
  const queue: SocketEvent[] = [];
  const waiters: ((e: SocketEvent) => void)[] = [];
  ws.on('message', (data) => {
    const e = JSON.parse(String(data)) as SocketEvent;
    all.push(e);
    const w = waiters.shift();
    if (w) w(e);
    else queue.push(e);
  });
  const closed = new Promise<{ code: number; reason: string; at: number }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: String(reason), at: performance.now() })));
  const next = (timeoutMs = 10_000) =>
    queue.length > 0
      ? Promise.resolve(queue.shift()!)
      : new Promise<SocketEvent>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`no event within ${timeoutMs} ms (got ${all.map((e) => e.type).join(', ')})`)), timeoutMs);
          waiters.push((e) => {
            clearTimeout(timer);
            resolve(e);
          });
        });
  const untilTerminal = async (timeoutMs?: number) => {
    const out: SocketEvent[] = [];
    for (;;) {
      const e = await next(timeoutMs);
      out.push(e);
      if (TERMINAL.has(e.type) || (e.type === 'error' && e.status !== undefined && out.length === 1)) return out;
    }
  };
  const socket: TestSocket = { ws, all, send: (event) => ws.send(JSON.stringify(event)), next, untilTerminal, closed };
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(socket));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

/** The value of one series of a Prometheus text page (0 when absent). */
export function metricValue(text: string, name: string, labels: Record<string, string>): number {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name + '{')) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return 0;
}
