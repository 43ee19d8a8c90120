// What the bench's own servers (fake upstream, FLOOR) share: loopback listening, closing with every
// kept-alive connection, and the command-line ready line plus signal handling run.ts waits for.
import type http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Listens and resolves with the bound port (0 = ephemeral). */
export async function listen(server: http.Server, host: string, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return (server.address() as AddressInfo).port;
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
