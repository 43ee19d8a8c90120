// `metrics.port`: /metrics on a listener of its own (by default on 127.0.0.1), so the API port that
// tenants reach does not tell them every key, team and spend. Plain node:http: one route, no auth,
// nothing of the API's plumbing. Under --workers the primary runs it with the merged view. It needs no
// key, so a browser page rebound to its address is refused by Host and Origin (host-guard.ts).
import { createServer, type Server } from 'node:http';
import { foreignRequest, hostRule } from './host-guard.js';

export interface MetricsServerOptions {
  host: string;
  port: number;
  contentType: string;
  metricsText(): Promise<string>;
  onError(err: Error): void;
  /** `server.allowed_hosts` (read at start-up, like the listener). */
  allowedHosts?: readonly string[];
}

/** Listens; resolves with the server once it does (rejects if the port cannot be bound). */
export function startMetricsServer(options: MetricsServerOptions): Promise<Server> {
  const rule = hostRule(options.host, options.allowedHosts ?? []);
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('only GET /metrics here\n');
      return;
    }
    const foreign = foreignRequest(rule, req.headers);
    if (foreign !== undefined) {
      res.writeHead(403, { 'content-type': 'text/plain' }).end(foreign + '\n');
      return;
    }
    options.metricsText().then(
      (text) => {
        res.writeHead(200, { 'content-type': options.contentType });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (err: Error) => {
        options.onError(err);
        res.writeHead(503, { 'content-type': 'text/plain' }).end('metrics unavailable\n');
      },
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      // A later failure of the listener is logged, never an uncaught 'error' event.
      server.on('error', options.onError);
      resolve(server);
    });
  });
}
