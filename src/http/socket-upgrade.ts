// WebSocket upgrades through the ordinary route table: Node hands an `Upgrade:` request to the server's
// 'upgrade' listener (never to 'request'), so the listener gives it a response object on its socket and
// routes it like any request. The auth hook, the route's checks and every refusal (401, 403, 426) are
// then plain HTTP answers in the door's envelope, written before anything is upgraded; only a route
// that accepts calls `takeUpgrade` and hands the socket to the WebSocket library.
import { ServerResponse, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';

/** What the route needs to complete an upgrade. */
export interface PendingUpgrade {
  socket: Duplex;
  head: Buffer;
}

const PENDING = Symbol('switchyard.pendingUpgrade');

type UpgradeRequest = IncomingMessage & { [PENDING]?: PendingUpgrade };

/** Route every upgrade request through the app's routes. */
export function routeUpgrades(app: FastifyInstance): void {
  app.server.on('upgrade', (req: UpgradeRequest, socket: Duplex, head: Buffer) => {
    const pending: PendingUpgrade = { socket, head };
    req[PENDING] = pending;
    const res = new ServerResponse(req);
    // A refusal ends the exchange: the socket was offered for an upgrade, not for more requests.
    res.shouldKeepAlive = false;
    res.assignSocket(socket as never);
    res.once('finish', () => {
      res.detachSocket(socket as never);
      socket.end();
    });
    socket.once('error', () => socket.destroy());
    app.routing(req, res);
  });
}

/** The request asks to become a WebSocket (`Upgrade: websocket`). */
export function asksForWebSocket(req: IncomingMessage): boolean {
  const upgrade = req.headers.upgrade;
  return typeof upgrade === 'string' && upgrade.toLowerCase() === 'websocket';
}

/** The socket of an upgrade request, taken once by the route that accepts it (undefined for a request that
 * came in as plain HTTP, or when it was taken already). */
export function takeUpgrade(req: IncomingMessage): PendingUpgrade | undefined {
  const r = req as UpgradeRequest;
  const pending = r[PENDING];
  r[PENDING] = undefined;
  return pending;
}
