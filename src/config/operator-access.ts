// Who may read the operator's data on the API port (the status data, /metrics): one rule for the
// config check, the routes (http/operator-access.ts) and the start-up and reload warnings.
import { ConfigError } from './config-error.js';
import type { GatewayConfig } from './types.js';

export type OperatorData = 'status' | 'metrics';

/** `public`: anyone (Host/Origin-guarded); `admin key`: an `auth.admin_keys` key; `nobody`. */
export type OperatorAccess = 'public' | 'admin key' | 'nobody';

type AccessConfig = Pick<GatewayConfig, 'auth' | 'status' | 'metrics'>;

export function operatorAccess(config: AccessConfig, what: OperatorData): OperatorAccess {
  if (what === 'status' ? config.status.public : config.metrics.public) return 'public';
  if (config.auth.adminKeys.length > 0) return 'admin key';
  // No admin keys: open only where everything is (auth.open), never because a list was left empty.
  return config.auth.open ? 'public' : 'nobody';
}

/** A page switched on that nobody could read, or a `public` that would mean nothing: said at load. */
export function checkOperatorAccess(config: AccessConfig): void {
  if (config.status.enabled && operatorAccess(config, 'status') === 'nobody') {
    throw new ConfigError(
      'status.enabled: the status data names every key, its spend and recent requests; with auth.keys it needs auth.admin_keys to read it, or status.public: true to serve it to anyone who reaches the port',
    );
  }
  if (config.metrics.public && config.metrics.port > 0) {
    throw new ConfigError('metrics.public: only for /metrics on the API port; with metrics.port set, /metrics is served only on that listener (which needs no key)');
  }
}

/** What a warning must say, at start-up and after each reload: operator data served without a key. */
export function operatorDataExposure(config: AccessConfig & Pick<GatewayConfig, 'source'>): string[] {
  const out: string[] = [];
  // The embedded default is open only on loopback, and says so in its own warning.
  const embedded = config.source === 'embedded default';
  if (config.status.enabled && operatorAccess(config, 'status') === 'public' && !embedded) {
    out.push(`status data readable without a key (${config.status.public ? 'status.public: true' : 'auth.open: true without auth.admin_keys'}): key names, spend and recent requests, to anyone who can reach the gateway`);
  }
  if (config.metrics.enabled && config.metrics.port === 0) {
    const access = operatorAccess(config, 'metrics');
    if (access === 'public' && !embedded) {
      out.push(`/metrics on the API port readable without a key (${config.metrics.public ? 'metrics.public: true' : 'auth.open: true without auth.admin_keys'}): key and team names and spend`);
    }
    if (access === 'nobody') {
      out.push('/metrics on the API port needs a key from auth.admin_keys and none are configured, so it answers 403: set metrics.port (a private listener), add auth.admin_keys, or set metrics.public: true');
    }
  }
  return out;
}
