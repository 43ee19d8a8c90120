// Authentication before anything reads the body: an onRequest hook identifies the caller from its
// key and answers 401 in the door's envelope — whatever the body is, even one the JSON parser would
// refuse — or stores the caller on the request for the routes (`request.caller`). A request served
// without a key (an open gateway) must pass the Host/Origin guard first (host-guard.ts): 403.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Caller } from '../access/caller.js';
import type { InboundCodec } from '../codecs/types.js';
import { GatewayError, toGatewayError } from '../errors.js';
import { identify } from './auth.js';
import type { AppContext } from './context.js';
import { apiHostRule, foreignRequest } from './host-guard.js';
import { requestIdFor, sendError } from './reply-helpers.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth hook on every authenticated route; null on the exempt ops routes. */
    caller: Caller | null;
  }
}

/** Probes and scrapes need no key (routes of ops-routes.ts). */
const EXEMPT_ROUTES = new Set(['/livez', '/healthz', '/readyz', '/metrics', '/']);

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route takes the key as `?key=` too (the Gemini door: Google's clients may send it there). */
    queryKey?: boolean;
  }
}

/** The `?key=` of a route that takes one. */
export function queryKeyOf(request: FastifyRequest): string | undefined {
  if (request.routeOptions.config?.queryKey !== true) return undefined;
  const key = (request.query as { key?: unknown } | undefined)?.key;
  return typeof key === 'string' ? key : undefined;
}

export function registerAuthHook(app: FastifyInstance, ctx: AppContext, codecFor: (request: FastifyRequest) => InboundCodec): void {
  app.decorateRequest('caller', null);
  app.addHook('onRequest', (request, reply, done) => {
    const route = request.routeOptions.url;
    // Routes with `config: { ownAuth: true }` (the status page) check the caller themselves.
    if (route !== undefined && (EXEMPT_ROUTES.has(route) || request.routeOptions.config?.ownAuth === true)) {
      done();
      return;
    }
    let caller: Caller;
    try {
      // ctx.config is read per request: a reload's new keys apply to the next request.
      caller = identify(ctx.config, request.headers, queryKeyOf(request), ctx.runtimeKeys);
    } catch (err) {
      // Replying without done(): fastify skips body parsing and the handler.
      sendError(reply, codecFor(request), toGatewayError(err), requestIdFor(request));
      return;
    }
    if (caller.anonymous) {
      const foreign = foreignRequest(apiHostRule(ctx.config.server), request.headers);
      if (foreign !== undefined) {
        sendError(reply, codecFor(request), new GatewayError('permission', foreign), requestIdFor(request));
        return;
      }
    }
    request.caller = caller;
    done();
  });
}
