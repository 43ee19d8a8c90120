// Who may read the operator's data on the API port: the status page's data (`/status.json`) and
// `/metrics`. Both name every key, team, spend and recent request, so on a gateway with keys they need
// a key from `auth.admin_keys`, unless the config says `status.public` / `metrics.public: true`; on an
// open gateway without admin keys (the embedded default) anyone may read them. What is served without a
// key must pass the Host/Origin guard (host-guard.ts). Answered by the routes themselves (the auth hook
// lets them through), in one JSON shape: {"error":{"type","message"}}. docs/security.md has the table.
import type { IncomingHttpHeaders } from 'node:http';
import { keyIndexFor } from '../access/key-index.js';
import { operatorAccess, type OperatorData } from '../config/operator-access.js';
import type { GatewayConfig } from '../config/types.js';
import { presentedKey } from './auth.js';
import { apiHostRule, foreignRequest } from './host-guard.js';

export interface Refusal {
  status: number;
  type: string;
  message: string;
}

const LABEL: Record<OperatorData, string> = { status: 'the status data', metrics: '/metrics on the API port' };
const WAY_OUT: Record<OperatorData, string> = {
  status: 'add auth.admin_keys, or set status.public: true',
  metrics: 'set metrics.port (a private listener), add auth.admin_keys, or set metrics.public: true',
};

/** Why this request may not read `what`, or undefined when it may. */
export function operatorDataRefusal(config: GatewayConfig, headers: IncomingHttpHeaders, what: OperatorData): Refusal | undefined {
  switch (operatorAccess(config, what)) {
    case 'public': {
      // Served without a key: only to a Host and Origin a rebinding page cannot fake.
      const foreign = foreignRequest(apiHostRule(config.server), headers);
      return foreign === undefined ? undefined : { status: 403, type: 'permission_error', message: foreign };
    }
    case 'admin key':
      return adminKeyRefusal(config, headers, what);
    case 'nobody':
      return { status: 403, type: 'permission_error', message: `${LABEL[what]} needs a key from auth.admin_keys and none are configured: ${WAY_OUT[what]}` };
  }
}

function adminKeyRefusal(config: GatewayConfig, headers: IncomingHttpHeaders, what: OperatorData): Refusal | undefined {
  const given = presentedKey(headers);
  if (given === undefined) return { status: 401, type: 'authentication_error', message: `${LABEL[what]} needs a key from auth.admin_keys (x-api-key or Authorization: Bearer)` };
  const caller = keyIndexFor(config.authKeys, config.auth).lookup(given);
  if (caller === undefined) return { status: 401, type: 'authentication_error', message: 'invalid API key' };
  if (!caller.admin) return { status: 403, type: 'permission_error', message: `${LABEL[what]} needs a key from auth.admin_keys` };
  return undefined;
}
