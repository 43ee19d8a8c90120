// The status page lists routes, deployments, key names and recent requests: served beyond loopback
// without admin keys, anyone who reaches the port reads them. Said once at start-up.
import type { GatewayConfig } from '../config/types.js';

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export function statusExposureWarning(config: Pick<GatewayConfig, 'status' | 'auth' | 'server'>): string | undefined {
  if (!config.status.enabled || config.auth.adminKeys.length > 0 || LOOPBACK.has(config.server.host)) return undefined;
  return `status.enabled on ${config.server.host} without auth.admin_keys: the status page is open to anyone who can reach the gateway`;
}
