// `metrics.port`: /metrics on a listener of its own (by default on 127.0.0.1), so the API port that
// tenants reach does not tell them every key, team and spend. Plain node:http: one route, no auth,
// nothing of the API's plumbing. Under --workers the primary runs it with the merged view.
import { createServer, type Server } from 'node:http';

export interface MetricsServerOptions {
  host: string;
  port: number;
  contentType: string;
  metricsText(): Promise<string>;
  onError(err: Error): void;
}

/** Listens; resolves with the server once it does (rejects if the port cannot be bound). */
export function startMetricsServer(options: MetricsServerOptions): Promise<Server> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('only GET /metrics here\n');
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
