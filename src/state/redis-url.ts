// The `state.url` of the redis backend: one server (redis[s]://) or a Redis Cluster's seed nodes
// (redis[s]+cluster://host:port[,host:port…]). No imports: config validation reads it too.
/** A Redis Cluster URL: `redis+cluster://` or `rediss+cluster://` (TLS). */
export function isClusterUrl(url: string): boolean {
  return /^rediss?\+cluster:\/\//i.test(url);
}

/** The seed nodes and credentials of a cluster URL (`redis+cluster://[user:pass@]h1:p1,h2:p2`). */
export function clusterSeeds(url: string): { nodes: { host: string; port: number }[]; username?: string; password?: string; tls: boolean } {
  const m = /^(rediss?)\+cluster:\/\/(?:([^@/]*)@)?([^/?#]+)/i.exec(url);
  if (!m) throw new Error('state.url: expected redis+cluster://host:port[,host:port…]');
  const [, scheme, auth, hosts] = m;
  const nodes = hosts!.split(',').map((hp) => {
    const at = hp.lastIndexOf(':');
    const host = at > 0 ? hp.slice(0, at).replace(/^\[|\]$/g, '') : hp;
    const port = at > 0 ? Number(hp.slice(at + 1)) : 6379;
    if (!host || !Number.isInteger(port) || port <= 0 || port > 65535) throw new Error(`state.url: bad cluster node '${hp}'`);
    return { host, port };
  });
  let username: string | undefined;
  let password: string | undefined;
  if (auth) {
    const colon = auth.indexOf(':');
    username = colon < 0 ? undefined : decodeURIComponent(auth.slice(0, colon)) || undefined;
    password = decodeURIComponent(colon < 0 ? auth : auth.slice(colon + 1)) || undefined;
  }
  return { nodes, username, password, tls: scheme!.toLowerCase() === 'rediss' };
}

/** The URL without its password, for messages. */
export function redactUrl(url: string): string {
  if (isClusterUrl(url)) return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable url)';
  }
}
