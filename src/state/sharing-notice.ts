// What is and is not shared between gateway instances, said once in the log: a gateway reachable from
// other machines on a per-machine backend (a load balancer in front of several of them would multiply
// every limit by the replica count and lose continuations between them), or one that has just seen
// another instance on its Redis.

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
