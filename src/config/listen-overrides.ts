// SWITCHYARD_HOST and SWITCHYARD_PORT say where the gateway listens, over a config file's server.host
// and server.port: the environment wins. A container image or a platform owns the address (the image
// sets 0.0.0.0:8080 and probes that port), a mounted config owns the rest; a file's loopback host can
// then never leave a container listening where nothing reaches it. An empty variable counts as unset.
import { ConfigError } from './config-error.js';

/** Where the listening host and port came from, for the start-up line. */
export interface ListenFrom {
  host: string;
  port: string;
}

/**
 * Puts the variables into the document's `server` (before validation, so every later check sees the
 * address really used) and says where each value came from.
 */
export function applyListenOverrides(raw: unknown, env: Record<string, string | undefined>): ListenFrom {
  const host = env.SWITCHYARD_HOST || undefined;
  const portText = env.SWITCHYARD_PORT || undefined;
  let port: number | undefined;
  if (portText !== undefined) {
    port = /^\d{1,5}$/.test(portText) ? Number(portText) : NaN;
    if (!(port >= 0 && port <= 65535)) throw new ConfigError(`SWITCHYARD_PORT: must be a port number from 0 to 65535`);
  }
  const doc = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? (raw as { server?: unknown }) : undefined;
  const fileServer = doc?.server !== null && typeof doc?.server === 'object' && !Array.isArray(doc.server) ? (doc.server as Record<string, unknown>) : undefined;
  const from: ListenFrom = {
    host: describe('SWITCHYARD_HOST', host, 'server.host', fileServer?.host),
    port: describe('SWITCHYARD_PORT', port, 'server.port', fileServer?.port),
  };
  // A document without an object here fails validation anyway, naming `server` or the root.
  if (doc && (doc.server === undefined || fileServer)) {
    if (host !== undefined || port !== undefined) {
      doc.server = { ...fileServer, ...(host !== undefined ? { host } : {}), ...(port !== undefined ? { port } : {}) };
    }
  }
  return from;
}

function describe(variable: string, fromEnv: unknown, key: string, inFile: unknown): string {
  if (fromEnv === undefined) return inFile === undefined ? 'default' : key;
  return inFile === undefined || inFile === fromEnv ? variable : `${variable} (over ${key}: ${JSON.stringify(inFile)})`;
}
