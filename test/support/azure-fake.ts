// A fake Azure OpenAI resource on loopback, in front of the scripted upstream. It answers what Azure
// answers: the v1 API (`/openai/v1/responses`, `/openai/v1/chat/completions`, the model naming a
// deployment), the deployment URLs (`/openai/deployments/{d}/chat/completions?api-version=…`) and
// `/openai/responses?api-version=…` (api-version required there), auth by `api-key` or an Entra bearer
// token (checked against the identity fake), Azure's error bodies (401, DeploymentNotFound, 404 without
// api-version, the content filter's ResponsibleAIPolicyViolation 400) and Azure's content-filter
// annotations on Chat answers (the choices-less `prompt_filter_results` chunk that opens every stream).
// A request it accepts goes to the scripted upstream as the first-party API with the deployment as model.
import { createServer, request, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from './scripted-upstream/http-body.js';

export type FilterResult = { filtered: boolean; severity?: 'safe' | 'low' | 'medium' | 'high'; detected?: boolean };

export interface AzureReceived {
  path: string;
  apiVersion: string | null;
  /** `v1`, `deployment` (per-deployment URL) or `resource` (`/openai/responses?api-version=`). */
  api: 'v1' | 'deployment' | 'resource';
  deployment: string;
  auth: 'api-key' | 'bearer' | 'none';
  headers: IncomingHttpHeaders;
  body: Record<string, unknown> | undefined;
  refused?: number;
}

export interface AzureFake {
  /** `http://127.0.0.1:<port>`, as `https://{resource}.openai.azure.com`. */
  endpoint: string;
  received: AzureReceived[];
  /** The next requests are refused by the content filter, with these category results. */
  enqueueContentFilter(...results: Record<string, FilterResult>[]): void;
  forwardTo: string;
  close(): Promise<void>;
}

const SAFE: Record<string, FilterResult> = {
  hate: { filtered: false, severity: 'safe' },
  self_harm: { filtered: false, severity: 'safe' },
  sexual: { filtered: false, severity: 'safe' },
  violence: { filtered: false, severity: 'safe' },
};

export function contentFilterError(results: Record<string, FilterResult>): unknown {
  return {
    error: {
      message:
        "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry. To learn more about our content filtering policies please read our documentation: https://go.microsoft.com/fwlink/?linkid=2198766",
      type: null,
      param: 'prompt',
      code: 'content_filter',
      status: 400,
      innererror: { code: 'ResponsibleAIPolicyViolation', content_filter_result: { ...SAFE, ...results } },
    },
  };
}

const V1 = /^\/openai\/v1\/(responses|chat\/completions|responses\/input_tokens)$/;
const DEPLOYMENT = /^\/openai\/deployments\/([^/]+)\/chat\/completions$/;
const RESOURCE = /^\/openai\/(responses|responses\/input_tokens)$/;

export async function startAzureFake(options: {
  apiKey: string;
  /** Deployment name → the model behind it (what the scripted upstream is told). */
  deployments: Record<string, string>;
  /** Entra tokens this resource accepts. */
  entraValid?: (token: string) => boolean;
  upstreamUrl: string;
}): Promise<AzureFake> {
  const received: AzureReceived[] = [];
  const filters: Record<string, FilterResult>[] = [];
  const target = { url: options.upstreamUrl };

  const send = (res: ServerResponse, rec: AzureReceived | undefined, status: number, body: unknown) => {
    if (rec) rec.refused = status;
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'apim-request-id': 'fake-apim-id' });
    res.end(text);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://azure');
    const text = (await readBody(req)).toString('utf8');
    let body: Record<string, unknown> | undefined;
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
    } catch {
      body = undefined;
    }
    const apiVersion = url.searchParams.get('api-version');
    const v1 = V1.exec(url.pathname);
    const dep = DEPLOYMENT.exec(url.pathname);
    const resource = RESOURCE.exec(url.pathname);
    if (req.method !== 'POST' || (!v1 && !dep && !resource)) return send(res, undefined, 404, { error: { code: '404', message: 'Resource not found' } });
    const api: AzureReceived['api'] = v1 ? 'v1' : dep ? 'deployment' : 'resource';
    const kind = (v1?.[1] ?? resource?.[1] ?? 'chat/completions') as 'responses' | 'chat/completions' | 'responses/input_tokens';
    const deployment = dep ? decodeURIComponent(dep[1]!) : typeof body?.model === 'string' ? body.model : '';
    const apiKey = req.headers['api-key'];
    const bearer = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    const rec: AzureReceived = { path: url.pathname, apiVersion, api, deployment, auth: apiKey ? 'api-key' : bearer ? 'bearer' : 'none', headers: req.headers, body };
    received.push(rec);

    const keyOk = apiKey === options.apiKey || (api === 'v1' && bearer === options.apiKey);
    if (!keyOk && !(bearer && options.entraValid?.(bearer))) {
      return send(res, rec, 401, {
        error: {
          code: '401',
          message: 'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.',
        },
      });
    }
    // The older URLs exist only with an api-version; v1 takes none (or `preview`).
    if (api !== 'v1' && !apiVersion) return send(res, rec, 404, { error: { code: '404', message: 'Resource not found' } });
    if (api === 'v1' && apiVersion !== null && apiVersion !== 'preview' && apiVersion !== 'v1') {
      return send(res, rec, 400, { error: { code: 'BadRequest', message: `API version not supported` } });
    }
    if (!body) return send(res, rec, 400, { error: { code: 'BadRequest', message: 'The request body is not valid JSON.' } });
    const model = options.deployments[deployment];
    if (!model) {
      return send(res, rec, 404, {
        error: { code: 'DeploymentNotFound', message: 'The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again.' },
      });
    }
    const filter = filters.shift();
    if (filter) return send(res, rec, 400, contentFilterError(filter));

    const forwarded = JSON.stringify({ ...body, model });
    const upstream = new URL(target.url);
    const path = '/v1/' + kind;
    const chat = kind === 'chat/completions';
    const up = request(
      { host: upstream.hostname, port: upstream.port, method: 'POST', path, headers: { 'content-type': 'application/json', authorization: 'Bearer via-azure', 'content-length': String(Buffer.byteLength(forwarded)) } },
      (answer) => {
        const headers = { ...answer.headers, 'apim-request-id': 'fake-apim-id' };
        const status = answer.statusCode ?? 502;
        if (!chat || status !== 200) {
          res.writeHead(status, headers);
          answer.pipe(res);
          return;
        }
        if (body.stream === true) {
          // Azure opens every Chat stream with the prompt's filter results in a chunk without choices.
          res.writeHead(status, headers);
          res.write(`data: ${JSON.stringify({ choices: [], created: 0, id: '', model: '', object: '', prompt_filter_results: [{ prompt_index: 0, content_filter_results: SAFE }] })}\n\n`);
          answer.pipe(res);
          return;
        }
        const chunks: Buffer[] = [];
        answer.on('data', (c: Buffer) => chunks.push(c));
        answer.on('end', () => {
          const json = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { choices?: Record<string, unknown>[] } & Record<string, unknown>;
          json.prompt_filter_results = [{ prompt_index: 0, content_filter_results: SAFE }];
          for (const choice of json.choices ?? []) if (choice.finish_reason !== 'content_filter') choice.content_filter_results = SAFE;
          const out = JSON.stringify(json);
          delete headers['content-length'];
          res.writeHead(status, { ...headers, 'content-length': Buffer.byteLength(out) });
          res.end(out);
        });
      },
    );
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
    endpoint: `http://127.0.0.1:${port}`,
    received,
    enqueueContentFilter: (...results) => void filters.push(...results),
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
