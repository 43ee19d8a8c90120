// A cloud credential source that accepts connections and never answers a token request: it answers
// the Google metadata server's detection ping (as GKE's does) and holds everything else, recording the
// paths it holds. Used by the credential-deadline tests (issue 32, R1).
import { createServer, type Socket } from 'node:net';

export interface CredentialBlackhole {
  /** host:port */
  readonly at: string;
  /** Paths of the token requests held, in arrival order. */
  readonly held: readonly string[];
  /** Detection pings answered. */
  readonly pings: number;
  /** Connections open now. */
  readonly open: number;
  close(): Promise<void>;
}

export async function startCredentialBlackhole(): Promise<CredentialBlackhole> {
  const sockets = new Set<Socket>();
  const held: string[] = [];
  let pings = 0;
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('data', (chunk) => {
      const head = chunk.toString('latin1');
      if (/^GET \/computeMetadata\/v1\/instance\/? /.test(head)) {
        pings++;
        socket.write('HTTP/1.1 200 OK\r\nMetadata-Flavor: Google\r\nContent-Type: application/text\r\nContent-Length: 0\r\n\r\n');
      } else {
        held.push(head.split(' ')[1] ?? '');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    at: `127.0.0.1:${(server.address() as { port: number }).port}`,
    held,
    get pings() {
      return pings;
    },
    get open() {
      return sockets.size;
    },
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Sets (a string) or unsets (undefined) environment variables; the returned function puts them back. */
export function overrideEnv(vars: Record<string, string | undefined>): () => void {
  const saved = Object.fromEntries(Object.keys(vars).map((name) => [name, process.env[name]]));
  const apply = (values: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  apply(vars);
  return () => apply(saved);
}
