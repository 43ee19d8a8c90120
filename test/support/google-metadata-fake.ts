// A fake Google Compute Engine metadata server on loopback: what Application Default Credentials use on
// GCE, GKE and Cloud Run, and what google-auth-library reaches when GCE_METADATA_HOST names it (the
// library reads process.env itself; a service-account file's `token_uri` it ignores, so this is the
// one real path to a fake token source). It issues short-lived tokens and counts the refreshes, and the
// Vertex fake checks every bearer token against it.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GoogleMetadataFake {
  /** `127.0.0.1:<port>`, the form GCE_METADATA_HOST takes. */
  host: string;
  /** Token requests answered with a token. */
  readonly issued: number;
  /** When each token was issued (ms since the epoch). */
  readonly issuedAt: readonly number[];
  /** Token requests seen (including refused ones). */
  readonly tokenRequests: number;
  /** Lifetime of the next tokens, in seconds. */
  lifetimeSec: number;
  /** Answer token requests with a 500 (a broken metadata server). */
  failing: boolean;
  /** Whether a bearer token was issued here and has not expired or been revoked. */
  valid(token: string): boolean;
  /** Every token issued so far stops being valid (a rotated service account). */
  revokeAll(): void;
  /** The scopes the last token request asked for. */
  readonly lastScopes: string | undefined;
  close(): Promise<void>;
}

const FLAVOR = { 'metadata-flavor': 'Google' };

export async function startGoogleMetadataFake(options: { lifetimeSec?: number; project?: string } = {}): Promise<GoogleMetadataFake> {
  const tokens = new Map<string, number>(); // token → expiry (ms)
  let issued = 0;
  const issuedAt: number[] = [];
  let tokenRequests = 0;
  let lastScopes: string | undefined;
  const state = { lifetimeSec: options.lifetimeSec ?? 3600, failing: false };

  const send = (res: ServerResponse, status: number, body: string, type = 'application/text') => {
    res.writeHead(status, { ...FLAVOR, 'content-type': type, 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://metadata');
    // The real server refuses any request without the flavor header (a guard against SSRF).
    if (req.headers['metadata-flavor'] !== 'Google') return send(res, 403, 'Missing Metadata-Flavor:Google header.');
    switch (url.pathname) {
      case '/computeMetadata/v1/instance':
      case '/computeMetadata/v1/instance/':
        return send(res, 200, 'attributes/\nhostname\nservice-accounts/\n');
      case '/computeMetadata/v1/project/project-id':
        return send(res, 200, options.project ?? 'fake-project');
      case '/computeMetadata/v1/instance/service-accounts/default/token': {
        tokenRequests++;
        lastScopes = url.searchParams.get('scopes') ?? undefined;
        if (state.failing) return send(res, 500, 'metadata server unavailable');
        const token = `ya29.fake-${++issued}-${randomBytes(12).toString('hex')}`;
        issuedAt.push(Date.now());
        tokens.set(token, Date.now() + state.lifetimeSec * 1000);
        return send(res, 200, JSON.stringify({ access_token: token, expires_in: state.lifetimeSec, token_type: 'Bearer' }), 'application/json');
      }
      default:
        return send(res, 404, 'Not Found');
    }
  };

  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    host: `127.0.0.1:${port}`,
    get issued() {
      return issued;
    },
    issuedAt,
    get tokenRequests() {
      return tokenRequests;
    },
    get lifetimeSec() {
      return state.lifetimeSec;
    },
    set lifetimeSec(v: number) {
      state.lifetimeSec = v;
    },
    get failing() {
      return state.failing;
    },
    set failing(v: boolean) {
      state.failing = v;
    },
    get lastScopes() {
      return lastScopes;
    },
    valid(token) {
      const expiry = tokens.get(token);
      return expiry !== undefined && Date.now() < expiry;
    },
    revokeAll() {
      tokens.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
