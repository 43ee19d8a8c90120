// What the bench's own servers (fake upstream, FLOOR) share: loopback listening, closing with every
// kept-alive connection, and the command-line ready line plus signal handling run.ts waits for.
import type http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Long keep-alive and no request timeout (load runs hold connections), then listens with the
 * gateway's default backlog (4,096: node's 511 overflowed when 10,000 streams connected within seconds);
 * resolves with the URL and the bound port (0 = ephemeral). */
export async function listen(server: http.Server, host: string, port: number): Promise<{ url: string; port: number }> {
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 0;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, backlog: 4096 }, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  return { url: `http://${host}:${bound}`, port: bound };
}

/** Stops accepting and drops kept-alive connections, so a close never waits for idle clients. */
export function closeServer(server: http.Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** Prints the `{"ready":true,...}` line run.ts reads, and closes on SIGTERM / SIGINT. */
export function announceReady(role: string, port: number, close: () => Promise<void>): void {
  process.stdout.write(JSON.stringify({ ready: true, role, port, pid: process.pid }) + '\n');
  const stop = () => void close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
