// Every 401 and 403 the gateway answers is a refusal of its own keys (an upstream that refuses the
// gateway's provider key becomes a 502, caller-safe-error.ts): counted and logged, rate-limited, by the
// observer. One onResponse hook sees them all, whichever route refused (the auth hook, the status data,
// /admin/usage, an admin key calling a model, the Host/Origin guard on what is served without a key);
// it costs one comparison on every other answer.
import type { FastifyInstance } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import type { AuthFailureReason } from '../observability/auth-failure-log.js';
import { presentedKey } from './auth.js';
import type { AppContext } from './context.js';
import { apiHostRule, foreignRequest } from './host-guard.js';

export function registerAuthRefusalCount(app: FastifyInstance, ctx: AppContext): void {
  app.addHook('onResponse', (request, reply, done) => {
    const status = reply.statusCode;
    if (status === 401 || status === 403) {
      const reason = refusalReason(ctx, status, request.headers);
      const ua = request.headers['user-agent'];
      ctx.obs.recordAuthFailure({
        reason,
        status,
        method: request.method,
        path: request.url.split('?')[0]!,
        remoteAddress: request.ip,
        ...(typeof ua === 'string' ? { userAgent: ua } : {}),
      });
    }
    done();
  });
}

/** 401: no key or a wrong one. 403: a keyless request the Host/Origin guard refused, else a key not allowed there. */
function refusalReason(ctx: AppContext, status: number, headers: IncomingHttpHeaders): AuthFailureReason {
  const keyless = presentedKey(headers) === undefined;
  if (status === 401) return keyless ? 'missing_key' : 'invalid_key';
  return keyless && foreignRequest(apiHostRule(ctx.config.server), headers) !== undefined ? 'foreign_host' : 'forbidden';
}
