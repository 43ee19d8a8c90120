// What is and is not shared between gateway instances, said once in the log: a gateway reachable from
// other machines on a per-machine backend (a load balancer in front of several of them would multiply
// every limit by the replica count and lose continuations between them), one that has just seen
// another instance on its Redis, or one whose id claims die with the process (memory).
import type { GatewayConfig } from '../config/types.js';

/** A host that only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

/** The warning for a gateway other machines can reach whose state is its own, else undefined. */
export function localBackendWarning(backend: 'memory' | 'file' | 'redis', host: string): string | undefined {
  return backend === 'redis' || isLoopbackHost(host) ? undefined : localBackendNotice(backend);
}

export function localBackendNotice(backend: 'memory' | 'file'): string {
  const scope = backend === 'memory' ? 'this process' : 'this machine';
  return (
    `state.backend ${backend} is per ${backend === 'memory' ? 'process' : 'machine'}: stored Responses (previous_response_id), ` +
    `rate limits, budgets and circuit state are kept for ${scope} only. Behind a load balancer with several instances, ` +
    `each enforces its own limits (N replicas allow N times each limit) and a conversation continues only where it started; ` +
    `use state.backend redis to share them (docs/state.md)`
  );
}

export function sharedNotice(count: number): string {
  return (
    `${count} gateway instances share this Redis: stored Responses (previous_response_id), rate limits, budgets and ` +
    `circuit state are cluster-wide; configuration and upstream connection pools are per instance (keep every ` +
    `instance's config identical)`
  );
}

/**
 * On `memory`, which response and item ids belong to which key lasts as long as the process (and the
 * newest 500,000 claims). An id nobody claims is forwarded to an OpenAI Responses upstream, which may know
 * it (previous-response.ts), so after a restart one key can continue another key's OpenAI conversation by
 * its id. A warning where that can happen (several keys, a Responses upstream), else a note.
 */
export function memoryClaimsNotice(config: Pick<GatewayConfig, 'state' | 'authKeys' | 'providers'>): { level: 'warn' | 'info'; text: string } | undefined {
  if (config.state.backend !== 'memory') return undefined;
  const text =
    'state.backend memory keeps stored Responses and the claims that tie response and item ids to their key in this ' +
    'process only: a restart forgets them (so does passing 500,000 claims), and an id no key claims is forwarded to ' +
    'an OpenAI Responses upstream, so after a restart a key can continue another key\'s OpenAI response by its id; ' +
    'use state.backend file or redis to keep claims for responses_store.claim_ttl_ms (docs/state.md)';
  const exposed = config.authKeys.length > 1 && [...config.providers.values()].some((p) => p.protocol === 'responses');
  return { level: exposed ? 'warn' : 'info', text };
}
