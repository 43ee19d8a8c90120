// The DNS-rebinding and cross-site guard for what the gateway answers without a key (docs/security.md):
// every route of an open gateway, keyless status data and /metrics. A web page whose name re-resolves
// to the gateway's address is same-origin with it, so the browser lets it post JSON and read the
// answers; only the Host header still says which name the page used. An IP address cannot rebind (there
// is no name to re-resolve), so any IP literal passes; a name must be a loopback name, the configured
// listening host, or in `server.allowed_hosts`. A browser's cross-origin request (an Origin that is not
// such a name or the request's own host, or `Sec-Fetch-Site: cross-site` without one) is refused too.
import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';

/** Who may be named in Host (and, but for IP literals, in Origin). */
export interface HostRule {
  /** `server.allowed_hosts: ['*']`: the check is off. */
  readonly any: boolean;
  /** Exact names, lower case, no trailing dot. */
  readonly names: ReadonlySet<string>;
  /** `*.example.com` entries, as `.example.com`. */
  readonly suffixes: readonly string[];
}

const WILDCARD_ADDRESSES = new Set(['', '0.0.0.0', '::', '[::]']);

/** The rule for a listener on `listenHost` with the operator's `server.allowed_hosts`. */
export function hostRule(listenHost: string, allowedHosts: readonly string[]): HostRule {
  const names = new Set(['localhost']);
  const suffixes = ['.localhost'];
  const listen = normalName(listenHost);
  if (!WILDCARD_ADDRESSES.has(listen)) names.add(listen);
  let any = false;
  for (const entry of allowedHosts) {
    const name = normalName(entry);
    if (name === '*') any = true;
    else if (name.startsWith('*.')) suffixes.push(name.slice(1));
    else names.add(name);
  }
  return { any, names, suffixes };
}

const cached = new WeakMap<object, HostRule>();

/** The API port's rule, built once per configuration (a reload brings a new `server` object). */
export function apiHostRule(server: { host: string; allowedHosts: readonly string[] }): HostRule {
  let rule = cached.get(server);
  if (rule === undefined) {
    rule = hostRule(server.host, server.allowedHosts);
    cached.set(server, rule);
  }
  return rule;
}

/** Why a keyless request may not be served (a caller-safe sentence), or undefined when it may. */
export function foreignRequest(rule: HostRule, headers: IncomingHttpHeaders): string | undefined {
  if (rule.any) return undefined;
  const host = headers.host;
  // No Host: not a browser (every browser sends one), so nothing a page could have rebound.
  if (host !== undefined && !hostAllowed(rule, hostnameOf(host), true)) {
    return `Host ${quoted(host)} is not allowed: requests without a key are served for loopback names, IP addresses and server.allowed_hosts only`;
  }
  const origin = headers.origin;
  if (origin !== undefined) {
    if (!originAllowed(rule, origin, host)) {
      return `Origin ${quoted(origin)} is not allowed: cross-site browser requests are refused (server.allowed_hosts lists the names allowed)`;
    }
  } else if (headers['sec-fetch-site'] === 'cross-site') {
    return 'cross-site browser requests are refused (Sec-Fetch-Site: cross-site)';
  }
  return undefined;
}

function originAllowed(rule: HostRule, origin: string, host: string | undefined): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    // `null` (a sandboxed frame, a file: page) and anything malformed.
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  // The gateway's own page (the status page under an IP address), once Host itself has passed.
  if (host !== undefined && url.host === host.toLowerCase()) return true;
  // Not any IP here: a page served from some other address may not drive this one.
  return hostAllowed(rule, normalName(url.hostname), false);
}

function hostAllowed(rule: HostRule, name: string, anyIp: boolean): boolean {
  if (rule.names.has(name)) return true;
  if (rule.suffixes.some((suffix) => name.endsWith(suffix))) return true;
  const bare = name.startsWith('[') && name.endsWith(']') ? name.slice(1, -1) : name;
  const ip = isIP(bare);
  if (ip === 0) return false;
  return anyIp || isLoopbackAddress(bare, ip);
}

function isLoopbackAddress(address: string, family: number): boolean {
  return family === 4 ? address.startsWith('127.') : address === '::1';
}

/** `Host: Example.COM.:8080` → `example.com`; `[::1]:8080` → `[::1]`. */
function hostnameOf(host: string): string {
  const value = host.trim();
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    return end === -1 ? value.toLowerCase() : value.slice(0, end + 1).toLowerCase();
  }
  const colon = value.indexOf(':');
  return normalName(colon === -1 ? value : value.slice(0, colon));
}

function normalName(name: string): string {
  const lower = name.trim().toLowerCase();
  // A bare IPv6 address (server.host: ::1) is compared in its bracketed Host form.
  if (isIP(lower) === 6) return `[${lower}]`;
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

function quoted(value: string): string {
  return JSON.stringify(value.length > 100 ? value.slice(0, 100) + '…' : value);
}
