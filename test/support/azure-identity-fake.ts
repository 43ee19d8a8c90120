// A fake managed-identity endpoint as App Service and Azure Functions provide it (IDENTITY_ENDPOINT,
// IDENTITY_HEADER: loopback on the real thing too), which @azure/identity's DefaultAzureCredential
// reaches through its ManagedIdentityCredential. It issues short-lived Entra tokens for the
// Cognitive Services resource, counts them, and the Azure fake checks bearer tokens against it.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface AzureIdentityFake {
  /** IDENTITY_ENDPOINT */
  endpoint: string;
  /** IDENTITY_HEADER: the secret the endpoint requires in `X-IDENTITY-HEADER`. */
  header: string;
  readonly issued: number;
  readonly issuedAt: readonly number[];
  /** The `resource` the last request asked for. */
  readonly lastResource: string | undefined;
  lifetimeSec: number;
  /** Answer as App Service does for an app without an identity (a 400). */
  failing: boolean;
  valid(token: string): boolean;
  close(): Promise<void>;
}

export async function startAzureIdentityFake(options: { lifetimeSec?: number } = {}): Promise<AzureIdentityFake> {
  const header = randomBytes(8).toString('hex');
  const tokens = new Map<string, number>();
  const issuedAt: number[] = [];
  let lastResource: string | undefined;
  const state = { lifetimeSec: options.lifetimeSec ?? 3600, failing: false };

  const send = (res: ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://identity');
    if (req.method !== 'GET' || url.pathname !== '/MSI/token/') return send(res, 404, { error: 'not_found' });
    if (req.headers['x-identity-header'] !== header) return send(res, 401, { error: 'unauthorized', error_description: 'X-IDENTITY-HEADER is missing or wrong' });
    if (!url.searchParams.get('api-version')) return send(res, 400, { error: 'invalid_request', error_description: 'api-version is required' });
    lastResource = url.searchParams.get('resource') ?? undefined;
    // What App Service answers when the app has no identity assigned (not retried, unlike a 5xx).
    if (state.failing) return send(res, 400, { statusCode: 400, message: 'Unable to load the proper Managed Identity.' });
    const token = `eyJ0eXAi.entra-${issuedAt.length + 1}-${randomBytes(12).toString('hex')}`;
    const now = Date.now();
    issuedAt.push(now);
    tokens.set(token, now + state.lifetimeSec * 1000);
    return send(res, 200, {
      access_token: token,
      expires_on: String(Math.floor(now / 1000) + state.lifetimeSec),
      resource: lastResource,
      token_type: 'Bearer',
      client_id: '00000000-0000-0000-0000-000000000001',
    });
  };
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}/MSI/token/`,
    header,
    get issued() {
      return issuedAt.length;
    },
    issuedAt,
    get lastResource() {
      return lastResource;
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
    valid(token) {
      const expiry = tokens.get(token);
      return expiry !== undefined && Date.now() < expiry;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
