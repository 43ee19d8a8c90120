// The status page: GET <prefix>/status (the page), <prefix>/status/status.js and .css (its files) and
// <prefix>/status.json (its data, docs/status.md). Off unless `status.enabled`. The page's files carry
// no data and always load; the data needs a key from `auth.admin_keys` when there are any (401 JSON
// without one, 403 for a key that is not an admin's): the page then shows its login form.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { keyIndexFor } from '../../access/key-index.js';
import { PAGE_HEADERS, pageFiles } from '../../status/page-files.js';
import { presentedKey } from '../auth.js';
import type { AppContext } from '../context.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route checks the caller itself (the auth hook lets it through). */
    ownAuth?: boolean;
  }
}

export function registerStatusRoutes(app: FastifyInstance, ctx: AppContext): void {
  // Routes are fixed at start-up: a reload may switch the page off or on, not move it.
  const prefix = ctx.config.status.pathPrefix;
  const options = { config: { ownAuth: true } };
  const enabled = (reply: FastifyReply): boolean => {
    if (ctx.config.status.enabled) return true;
    reply.callNotFound();
    return false;
  };

  app.get(prefix + '/status', options, async (_request, reply) => {
    if (!enabled(reply)) return;
    const auth = ctx.config.auth.adminKeys.length > 0 ? 'required' : 'none';
    reply.headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(pageFiles().html.replace('{{auth}}', auth));
  });
  app.get(prefix + '/status/status.js', options, async (_request, reply) => {
    if (!enabled(reply)) return;
    reply.headers(PAGE_HEADERS).type('text/javascript; charset=utf-8').send(pageFiles().script);
  });
  app.get(prefix + '/status/status.css', options, async (_request, reply) => {
    if (!enabled(reply)) return;
    reply.headers(PAGE_HEADERS).type('text/css; charset=utf-8').send(pageFiles().style);
  });
  app.get(prefix + '/status.json', options, async (request, reply) => {
    if (!enabled(reply)) return;
    const refused = refusal(ctx, request);
    if (refused) {
      reply
        .code(refused.status)
        .header('cache-control', 'no-store')
        .type('application/json')
        .send(JSON.stringify({ error: { type: refused.type, message: refused.message } }));
      return;
    }
    const body = await ctx.status.snapshot();
    reply.header('cache-control', 'no-store').type('application/json').send(JSON.stringify(body));
  });
}

/** Why this request may not read the status data, or undefined when it may. */
function refusal(ctx: AppContext, request: FastifyRequest): { status: number; type: string; message: string } | undefined {
  const { authKeys, auth } = ctx.config;
  if (auth.adminKeys.length === 0) return undefined;
  const given = presentedKey(request.headers);
  if (given === undefined) return { status: 401, type: 'authentication_error', message: 'the status page needs a key from auth.admin_keys (x-api-key header)' };
  const caller = keyIndexFor(authKeys, auth).lookup(given);
  if (caller === undefined) return { status: 401, type: 'authentication_error', message: 'invalid API key' };
  if (!caller.admin) return { status: 403, type: 'permission_error', message: 'the status page needs a key from auth.admin_keys' };
  return undefined;
}
