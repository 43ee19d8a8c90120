// A port that cannot be bound, said in one line (what, where, what to do) instead of Node's stack trace.

interface ListenFailure {
  code?: string;
  message?: string;
}

/** `what` names the listener (`server` or `metrics.port`); `how` says how to choose another address. */
export function describeListenError(err: unknown, what: string, host: string, port: number, how: string): string {
  const e = (err ?? {}) as ListenFailure;
  const at = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  if (e.code === 'EADDRINUSE') return `${what}: cannot listen on ${at}: the address is already in use (EADDRINUSE); stop the process using it, or choose another port (${how})`;
  if (e.code === 'EACCES') return `${what}: cannot listen on ${at}: permission denied (EACCES); ports below 1024 need privileges, choose another port (${how})`;
  if (e.code === 'EADDRNOTAVAIL') return `${what}: cannot listen on ${at}: no such address on this machine (EADDRNOTAVAIL); choose another host (${how})`;
  return `${what}: cannot listen on ${at}: ${e.code ? `${e.code}: ` : ''}${e.message ?? String(err)}`;
}
