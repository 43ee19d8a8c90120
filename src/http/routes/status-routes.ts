// The status page: GET <prefix>/status (the page), <prefix>/status/status.js, keys-console.js and
// status.css (its files) and <prefix>/status.json (its data, docs/status.md). Off unless
// `status.enabled`. The page's files carry no data and always load; who may read the data is
// operator-access.ts (401/403 JSON): with admin keys the page shows its login form. The keys console
// calls the admin API (admin-key-routes.ts) with the admin key the page signed in with.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { operatorAccess } from '../../config/operator-access.js';
import { PAGE_HEADERS, pageFiles } from '../../status/page-files.js';
import type { AppContext } from '../context.js';
import { operatorDataRefusal } from '../operator-access.js';

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
  // The admin API (/admin/…) relative to the page at <prefix>/status, so a proxy that strips an outer
  // prefix serves the console's calls as it serves the page. Empty: no console (no admin API).
  const adminBase = '../'.repeat(prefix.split('/').length - 1) + 'admin/';
  const enabled = (reply: FastifyReply): boolean => {
    if (ctx.config.status.enabled) return true;
    reply.callNotFound();
    return false;
  };

  app.get(prefix + '/status', options, async (_request, reply) => {
    if (!enabled(reply)) return;
    const auth = operatorAccess(ctx.config, 'status') === 'admin key' ? 'required' : 'none';
    const admin = ctx.keyAdmin !== undefined && ctx.config.auth.adminKeys.length > 0 ? adminBase : '';
    reply.headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(pageFiles().html.replace('{{auth}}', auth).replace('{{admin}}', admin));
  });
  app.get(prefix + '/status/status.js', options, async (_request, reply) => {
    if (!enabled(reply)) return;
    reply.headers(PAGE_HEADERS).type('text/javascript; charset=utf-8').send(pageFiles().script);
  });
  app.get(prefix + '/status/keys-console.js', options, async (_request, reply) => {
    if (!enabled(reply)) return;
    reply.headers(PAGE_HEADERS).type('text/javascript; charset=utf-8').send(pageFiles().console);
  });
  app.get(prefix + '/status/status.css', options, async (_request, reply) => {
    if (!enabled(reply)) return;
    reply.headers(PAGE_HEADERS).type('text/css; charset=utf-8').send(pageFiles().style);
  });
  app.get(prefix + '/status.json', options, async (request, reply) => {
    if (!enabled(reply)) return;
    const refused = operatorDataRefusal(ctx.config, request.headers, 'status');
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
