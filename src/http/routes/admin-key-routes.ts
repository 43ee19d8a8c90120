// The admin API for keys and teams issued at runtime (docs/runtime-keys.md), for `auth.admin_keys`
// callers only (a model key gets 403, no key 401):
//   POST /admin/keys → 201 (the secret once, as `key`) · GET /admin/keys · GET|PATCH|DELETE /admin/keys/{name}
//   POST /admin/keys/{name}/rotate {grace_s?} → 200 (the new secret) · the same under /admin/teams
//   GET /admin/audit?limit=N
// Bodies are checked by compiled schemas (access/admin-schemas.ts); errors in OpenAI's envelope with
// `param` naming the field.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  checkKeyCreate,
  checkKeyPatch,
  checkRotate,
  checkTeamCreate,
  checkTeamPatch,
  type BodyCheck,
} from '../../access/admin-schemas.js';
import type { KeyAdmin } from '../../access/key-admin.js';
import { responsesCodec } from '../../codecs/openai-responses/index.js';
import { GatewayError, toGatewayError } from '../../errors.js';
import { StateUnavailableError } from '../../state/types.js';
import type { AppContext } from '../context.js';
import { requestIdFor, sendError } from '../reply-helpers.js';
import { identifyCaller } from '../route-preamble.js';
import { stateUnavailable } from '../state-unavailable.js';

const AUDIT_DEFAULT = 100;
const AUDIT_MAX = 1000;

type Handler = (admin: KeyAdmin, adminName: string, request: FastifyRequest) => Promise<{ status: number; body?: unknown }>;

export function registerAdminKeyRoutes(app: FastifyInstance, ctx: AppContext): void {
  const route = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, handler: Handler) =>
    app.route({ method, url, handler: (request, reply) => answer(ctx, request, reply, handler) });
  const name = (request: FastifyRequest) => (request.params as { name: string }).name;

  route('POST', '/admin/keys', async (a, admin, r) => ({ status: 201, body: await a.createKey(admin, body(checkKeyCreate, r)) }));
  route('GET', '/admin/keys', async (a) => ({ status: 200, body: { data: await a.listKeys() } }));
  route('GET', '/admin/keys/:name', async (a, _admin, r) => ({ status: 200, body: await a.getKey(name(r)) }));
  route('PATCH', '/admin/keys/:name', async (a, admin, r) => ({ status: 200, body: await a.updateKey(admin, name(r), body(checkKeyPatch, r)) }));
  route('POST', '/admin/keys/:name/rotate', async (a, admin, r) => ({ status: 200, body: await a.rotateKey(admin, name(r), body(checkRotate, r, true)) }));
  route('DELETE', '/admin/keys/:name', async (a, admin, r) => (await a.revokeKey(admin, name(r)), { status: 204 }));

  route('POST', '/admin/teams', async (a, admin, r) => ({ status: 201, body: await a.createTeam(admin, body(checkTeamCreate, r)) }));
  route('GET', '/admin/teams', async (a) => ({ status: 200, body: { data: await a.listTeams() } }));
  route('GET', '/admin/teams/:name', async (a, _admin, r) => ({ status: 200, body: await a.getTeam(name(r)) }));
  route('PATCH', '/admin/teams/:name', async (a, admin, r) => ({ status: 200, body: await a.updateTeam(admin, name(r), body(checkTeamPatch, r)) }));
  route('DELETE', '/admin/teams/:name', async (a, admin, r) => (await a.deleteTeam(admin, name(r)), { status: 204 }));

  route('GET', '/admin/audit', async (a, _admin, r) => {
    const raw = (r.query as { limit?: unknown } | undefined)?.limit;
    let limit = AUDIT_DEFAULT;
    if (raw !== undefined) {
      limit = Number(raw);
      if (!Number.isInteger(limit) || limit < 1 || limit > AUDIT_MAX) {
        throw new GatewayError('invalid_request', `limit: an integer from 1 to ${AUDIT_MAX}`, { param: 'limit' });
      }
    }
    return { status: 200, body: { data: await a.audit(limit) } };
  });
}

/** The checked body; `optional`: an absent body counts as {} (rotate without options). */
function body<T>(check: BodyCheck<T>, request: FastifyRequest, optional = false): T {
  const value = request.body === undefined || request.body === null ? (optional ? {} : undefined) : request.body;
  const result = check(value);
  if (!result.ok) throw new GatewayError('invalid_request', result.problem.message, { param: result.problem.field });
  return result.value;
}

async function answer(ctx: AppContext, request: FastifyRequest, reply: FastifyReply, handler: Handler): Promise<void> {
  const requestId = requestIdFor(request);
  try {
    const caller = identifyCaller(ctx, request);
    if (caller.anonymous) throw new GatewayError('authentication', 'the admin API needs a key from auth.admin_keys');
    if (!caller.admin) throw new GatewayError('permission', 'the admin API needs a key from auth.admin_keys');
    if (ctx.keyAdmin === undefined) throw new GatewayError('not_found', 'runtime keys are switched off (auth.runtime_keys.enabled: false)');
    const { status, body } = await handler(ctx.keyAdmin, caller.name, request);
    reply.code(status).header(responsesCodec.requestIdHeader, requestId).header('cache-control', 'no-store');
    if (body === undefined) reply.send();
    else reply.type('application/json').send(JSON.stringify(body));
  } catch (err) {
    const gerr = err instanceof StateUnavailableError ? stateUnavailable(ctx, err, 'change keys') : toGatewayError(err);
    if (!(err instanceof GatewayError) && !(err instanceof StateUnavailableError)) ctx.logger.warn({ requestId, err: ctx.obs.safeError(err) }, 'admin API call failed');
    sendError(reply, responsesCodec, gerr, requestId);
  }
}
