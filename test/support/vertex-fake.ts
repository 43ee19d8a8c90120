// A fake Vertex AI endpoint for Anthropic models on loopback, in front of the scripted upstream: it
// checks what Vertex checks (the publisher-model URL and its method, a Google bearer token issued by the
// metadata fake and not expired, the project, the body's `anthropic_version`, no `model` in a
// generation body, `stream` matching the method), answers Google's own error shape for what the
// platform refuses, and otherwise hands the Messages request (model back in the body) to the scripted
// upstream, relaying its answer byte for byte: Claude on Vertex speaks Anthropic's SSE and errors.
import { createServer, request, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GoogleMetadataFake } from './google-metadata-fake.js';
import { readBody } from './scripted-upstream/http-body.js';

export interface VertexReceived {
  path: string;
  project: string;
  region: string;
  /** The model named in the URL (`count-tokens` for the counter). */
  model: string;
  method: 'rawPredict' | 'streamRawPredict';
  headers: IncomingHttpHeaders;
  /** The body as Vertex received it. */
  body: Record<string, unknown> | undefined;
  /** The status the fake itself answered with, when it refused the request (undefined: relayed). */
  refused?: number;
}

export interface GoogleErrorSpec {
  status: number;
  name: string;
  message: string;
}

export interface VertexFake {
  /** `http://127.0.0.1:<port>/v1`, the base URL (as `https://{region}-aiplatform.googleapis.com/v1`). */
  baseUrl: string;
  received: VertexReceived[];
  /** Google-shaped refusals served before the next requests reach the model (quota, for instance). */
  enqueueGoogleError(...errors: GoogleErrorSpec[]): void;
  /** The scripted upstream's base URL (settable: a harness learns it after starting this fake). */
  forwardTo: string;
  close(): Promise<void>;
}

/** What Google documents (`vertex-2023-10-16`), or a dated Anthropic API version as today's
 * @anthropic-ai/vertex-sdk sends it (its `anthropic-version` header moved into the body). */
export const VERTEX_VERSION = /^(vertex-2023-10-16|\d{4}-\d{2}-\d{2})$/;

const PATH = /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/anthropic\/models\/([^/:]+):(rawPredict|streamRawPredict)$/;

export function googleError(spec: GoogleErrorSpec): string {
  return JSON.stringify({ error: { code: spec.status, message: spec.message, status: spec.name } });
}

function anthropicError(status: number, message: string): string {
  return JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message } });
}

export async function startVertexFake(options: { project: string; metadata: GoogleMetadataFake; upstreamUrl: string }): Promise<VertexFake> {
  const received: VertexReceived[] = [];
  const queue: GoogleErrorSpec[] = [];
  const target = { url: options.upstreamUrl };

  const refuse = (res: ServerResponse, rec: VertexReceived | undefined, status: number, body: string) => {
    if (rec) rec.refused = status;
    res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://vertex');
    const text = (await readBody(req)).toString('utf8');
    const m = req.method === 'POST' ? PATH.exec(url.pathname) : null;
    if (!m) return refuse(res, undefined, 404, googleError({ status: 404, name: 'NOT_FOUND', message: `The requested URL ${url.pathname} was not found on this server.` }));
    let body: Record<string, unknown> | undefined;
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
    } catch {
      body = undefined;
    }
    const [, project, region, model, method] = m as unknown as [string, string, string, string, VertexReceived['method']];
    const rec: VertexReceived = { path: url.pathname, project: decodeURIComponent(project), region: decodeURIComponent(region), model: decodeURIComponent(model), method, headers: req.headers, body };
    received.push(rec);

    const auth = req.headers.authorization ?? '';
    const token = auth.startsWith('Bearer ') ? auth.slice(7) : '';
    if (!options.metadata.valid(token)) {
      return refuse(res, rec, 401, googleError({
        status: 401,
        name: 'UNAUTHENTICATED',
        message: 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
      }));
    }
    if (rec.project !== options.project) {
      return refuse(res, rec, 403, googleError({ status: 403, name: 'PERMISSION_DENIED', message: `Permission 'aiplatform.endpoints.predict' denied on resource '//aiplatform.googleapis.com/projects/${rec.project}/locations/${rec.region}/publishers/anthropic/models/${rec.model}' (or it may not exist).` }));
    }
    const queued = queue.shift();
    if (queued) return refuse(res, rec, queued.status, googleError(queued));
    if (!body) return refuse(res, rec, 400, googleError({ status: 400, name: 'INVALID_ARGUMENT', message: 'Invalid JSON payload received.' }));
    if (typeof body.anthropic_version !== 'string' || !VERTEX_VERSION.test(body.anthropic_version)) {
      return refuse(res, rec, 400, anthropicError(400, 'anthropic_version: Field required (vertex-2023-10-16)'));
    }
    const counting = rec.model === 'count-tokens';
    if (counting ? typeof body.model !== 'string' : 'model' in body) {
      return refuse(res, rec, 400, anthropicError(400, counting ? 'model: Field required' : 'model: Extra inputs are not permitted'));
    }
    if (!counting && (body.stream === true) !== (method === 'streamRawPredict')) {
      return refuse(res, rec, 400, anthropicError(400, `stream: ${method} requires stream ${method === 'streamRawPredict'}`));
    }

    // To the scripted upstream as the first-party Messages API.
    const { anthropic_version: _version, ...rest } = body;
    const forwarded = JSON.stringify(counting ? rest : { model: rec.model, ...rest });
    const headers: Record<string, string> = { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': 'via-vertex', 'content-length': String(Buffer.byteLength(forwarded)) };
    const beta = req.headers['anthropic-beta'];
    if (typeof beta === 'string') headers['anthropic-beta'] = beta;
    const upstream = new URL(target.url);
    const up = request({ host: upstream.hostname, port: upstream.port, method: 'POST', path: counting ? '/v1/messages/count_tokens' : '/v1/messages', headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    up.on('error', () => res.destroy());
    res.on('close', () => up.destroy());
    up.end(forwarded);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    received,
    enqueueGoogleError: (...errors) => void queue.push(...errors),
    get forwardTo() {
      return target.url;
    },
    set forwardTo(url: string) {
      target.url = url;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
