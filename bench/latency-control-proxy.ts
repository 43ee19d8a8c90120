// A control for bench/latency-ab.ts: FLOOR (floor-proxy.ts) with knobs that add what a gateway might add
// to one request's path, so their price in latency at a low rate can be read on this machine:
//   --spin-us N      burn N µs of CPU (a busy loop) when the request body is complete, before forwarding
//   --hops N         N `setImmediate` turns before forwarding and N before the reply's end (event-loop turns
//                    with nothing to wait for)
//   --timer-ms N     a `setTimeout(N)` before forwarding (a real wake-up of the process)
//   --loop N         N iterations of an arithmetic loop (registers only, no memory) before forwarding, timed:
//                    `GET /__loop` answers the median time of the loops since the last call (µs). If it
//                    is the same at 100 and 1,000 requests/s, the CPU's speed does not change with the rate
//                    and what slows a request's code down at a low rate is memory (caches, TLB), not the clock.
// Not a product part and not in `npm run bench`.
//
//   node --import tsx bench/latency-control-proxy.ts --upstream http://127.0.0.1:PORT [--spin-us 200] [--hops 1]
import http from 'node:http';
import { Pool, type Dispatcher } from 'undici';
import { parseFlags } from './cli-flags.js';
import { forwardable } from './floor-proxy.js';
import { announceReady, closeServer, listen } from './lib/serve.js';

function spin(us: number): void {
  if (us <= 0) return;
  const end = performance.now() + us / 1000;
  while (performance.now() < end);
}

let sink = 0;
function loop(n: number): number {
  let x = sink | 1;
  for (let i = 0; i < n; i++) x = (x * 1103515245 + 12345) | 0;
  sink = x;
  return x;
}

function after(hops: number, fn: () => void): void {
  if (hops <= 0) fn();
  else setImmediate(() => after(hops - 1, fn));
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2));
  const upstream = flags.get('upstream');
  if (!upstream) throw new Error('--upstream http://127.0.0.1:PORT');
  const spinUs = Number(flags.get('spin-us') ?? 0);
  const hops = Number(flags.get('hops') ?? 0);
  const timerMs = flags.has('timer-ms') ? Number(flags.get('timer-ms')) : -1;
  const loopN = Number(flags.get('loop') ?? 0);
  let loopUs: number[] = [];
  const pool = new Pool(upstream, { connections: 128, pipelining: 1, keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000 });

  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/__loop') {
      const s = loopUs.sort((a, b) => a - b);
      loopUs = [];
      res.end(JSON.stringify({ n: s.length, p50Us: s.length ? s[s.length >> 1] : null }));
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      spin(spinUs);
      if (loopN > 0) {
        const t = performance.now();
        loop(loopN);
        loopUs.push((performance.now() - t) * 1000);
      }
      const forward = () =>
        after(hops, () =>
          pool.dispatch(
            { method: (req.method ?? 'POST') as Dispatcher.HttpMethod, path: req.url ?? '/', headers: forwardable(req.headers), body: Buffer.concat(chunks) },
            {
              onRequestStart() {},
              onResponseStart(_c, statusCode, headers) {
                res.writeHead(statusCode, forwardable(headers));
              },
              onResponseData(_c, chunk) {
                res.write(chunk);
              },
              onResponseEnd() {
                after(hops, () => res.end());
              },
              onResponseError(_c, err) {
                res.destroy(err);
              },
            },
          ),
        );
      if (timerMs >= 0) setTimeout(forward, timerMs);
      else forward();
    });
  });
  const { port } = await listen(server, '127.0.0.1', Number(flags.get('port') ?? 0));
  announceReady('latency-control', port, async () => {
    await closeServer(server);
    await pool.close().catch(() => pool.destroy());
  });
}

void main();
