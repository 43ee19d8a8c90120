// `server.allowed_hosts`: the names, beyond loopback names, IP addresses and server.host, that may be
// named in Host (and Origin) by a request served without a key (http/host-guard.ts).
import { isIP } from 'node:net';
import { ConfigError } from './config-error.js';

const NAME = /^(\*\.)?[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*\.?$/i;

export function resolveAllowedHosts(entries: readonly string[] | undefined): string[] {
  if (entries === undefined) return [];
  entries.forEach((entry, i) => {
    const bare = entry.startsWith('[') && entry.endsWith(']') ? entry.slice(1, -1) : entry;
    if (entry === '*' || NAME.test(entry) || isIP(bare) !== 0) return;
    // Ports, schemes and paths are the usual slip: say so rather than never match.
    throw new ConfigError(
      `server.allowed_hosts.${i}: expected a host name (gateway.example.com), *.example.com or * — no scheme, port or path`,
    );
  });
  return [...entries];
}
