// The doors' WebSocket mode: `GET <door path>` with `Upgrade: websocket`. The auth hook has run (a bad
// key is a 401 before anything is upgraded). With WebSocket mode off the upgrade is answered 426 Upgrade
// Required, which makes clients (Codex) fall back to HTTP at once; a 404 would cost them retries.
// Accepted, the connection is a SocketConnection (socket-session.ts).
import type { FastifyInstance } from 'fastify';
import { responsesCodec } from '../../codecs/openai-responses/index.js';
import type { InboundCodec } from '../../codecs/types.js';
import { GatewayError } from '../../errors.js';
import type { AppContext } from '../context.js';
import { requestIdFor, sendError } from '../reply-helpers.js';
import { WebSocketServer } from 'ws';
import { SocketConnection } from '../socket-session.js';
import { asksForWebSocket, routeUpgrades, takeUpgrade } from '../socket-upgrade.js';

/** The doors with a WebSocket mode, by the path it is served on. */
const SOCKET_DOORS: readonly { path: string; codec: InboundCodec }[] = [{ path: '/v1/responses', codec: responsesCodec }];

export function registerSocketRoutes(app: FastifyInstance, ctx: AppContext): void {
  routeUpgrades(app);
  // One client frame may be as large as a request body (start-up value). No compression: a turn costs
  // no more CPU than over HTTP (clients that offer permessage-deflate get plain frames).
  const sockets = new WebSocketServer({ noServer: true, maxPayload: ctx.config.server.bodyLimitBytes, perMessageDeflate: false, clientTracking: false });
  for (const { path, codec } of SOCKET_DOORS) {
    app.get(path, (request, reply) => {
      const requestId = requestIdFor(request);
      if (!asksForWebSocket(request.raw)) {
        sendError(reply, codec, new GatewayError('not_found', `no route for GET ${path}: send POST ${path}, or open a WebSocket on it`), requestId);
        return;
      }
      if (!ctx.config.websocket.enabled) {
        sendError(reply, codec, new GatewayError('upgrade_required', `WebSocket mode is off on this gateway (websocket.enabled: false): send POST ${path}`), requestId);
        return;
      }
      if (ctx.draining && !app.server.listening) {
        // Past the drain's stop (a request already on an open connection): the connection would only be
        // told to go away; the client opens its socket on another instance.
        sendError(reply, codec, new GatewayError('unavailable', 'the gateway instance is shutting down; open the WebSocket again (another instance will take it)'), requestId);
        return;
      }
      const pending = takeUpgrade(request.raw);
      if (!pending || !codec.socket) {
        // `Upgrade: websocket` without `Connection: upgrade`: Node did not hand it over as an upgrade.
        sendError(reply, codec, new GatewayError('upgrade_required', 'a WebSocket upgrade needs Connection: Upgrade and Sec-WebSocket-Key'), requestId);
        return;
      }
      reply.hijack();
      reply.raw.detachSocket(pending.socket as never);
      // ws checks the handshake (a bad one is a 400 and the socket closed) and frames everything after.
      sockets.handleUpgrade(request.raw, pending.socket, pending.head, (ws) => {
        new SocketConnection(ctx, codec, ws, pending.socket, request.headers, ctx.sockets);
      });
    });
  }
}
