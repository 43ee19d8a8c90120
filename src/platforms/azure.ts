// Azure OpenAI: the v1 API (`https://{resource}.openai.azure.com/openai/v1` + the driver's `/responses`
// or `/chat/completions`, the model naming the deployment) or the older deployment URLs
// (`/openai/deployments/{deployment}/chat/completions?api-version=…`, and `/openai/responses?api-version=…`
// with the deployment as the body's model: Responses has no per-deployment URL). Auth is the `api-key`
// header or a Microsoft Entra bearer token (azure-entra.ts). Azure's content filter refuses a prompt with
// a 400 of its own shape, read here; a filtered answer (`finish_reason: content_filter`, Responses
// `incomplete_details.reason: content_filter`) is the drivers' refusal already.
import type { ProviderConfig } from '../config/types.js';
import { GatewayError } from '../errors.js';
import { entraTokens, type EntraCredential } from './azure-entra.js';
import { credentialFetchBoundMs } from './credential-deadline.js';
import { withMemberValue } from './json-members.js';
import type { Platform, PlatformRequest } from './types.js';

export function azurePlatform(provider: ProviderConfig, credential?: EntraCredential): Platform {
  const settings = provider.platform!;
  const tokens = settings.auth === 'entra' ? entraTokens(provider.name, credential, credentialFetchBoundMs(provider.timeouts.connectMs)) : undefined;
  const query = settings.apiVersion !== '' ? '?api-version=' + encodeURIComponent(settings.apiVersion) : '';
  // Deployment URLs hang off the resource's `/openai`; accept a base_url with or without it.
  const openai = provider.basePath.endsWith('/openai') ? '' : '/openai';
  const deployment = settings.deployment;
  const chatPath = `${openai}/deployments/${encodeURIComponent(deployment)}/chat/completions${query}`;
  const deploymentModel = JSON.stringify(deployment);

  const address = (req: PlatformRequest): { path: string; body: string } => {
    if (deployment === '') return { path: req.path + query, body: req.body };
    if (req.path === '/chat/completions') return { path: chatPath, body: req.body };
    // /responses and /responses/input_tokens: one URL for the resource, the deployment in the body.
    return { path: openai + req.path + query, body: withMemberValue(req.body, 'model', deploymentModel) };
  };

  const finish = (req: PlatformRequest, bearer: string | undefined): PlatformRequest => {
    const headers: Record<string, string> = {};
    let key: string | undefined;
    for (const name in req.headers) {
      if (name.toLowerCase() === 'authorization') key = req.headers[name]!.replace(/^Bearer /, '');
      else headers[name] = req.headers[name]!;
    }
    // The driver put the provider's key (rotation included) in `authorization`; Azure wants it as `api-key`.
    if (bearer !== undefined) headers['authorization'] = 'Bearer ' + bearer;
    else if (key) headers['api-key'] = key;
    const { path, body } = address(req);
    return { ...req, path, headers, body };
  };

  return {
    prepare(req) {
      if (!tokens) return finish(req, undefined);
      const token = tokens.get();
      return typeof token === 'string' ? finish(req, token) : token.then((t) => finish(req, t));
    },
    decodeError: (status, _headers, body) => decodeContentFilterError(status, body),
  };
}

interface AzureErrorBody {
  error?: {
    code?: unknown;
    message?: unknown;
    param?: unknown;
    innererror?: { code?: unknown; content_filter_result?: Record<string, { filtered?: boolean; severity?: string; detected?: boolean }> };
  };
}

/** Azure's content-filter refusal (`code: content_filter`, `innererror.code: ResponsibleAIPolicyViolation`)
 * → invalid_request naming the categories that triggered; anything else is left to the driver. */
export function decodeContentFilterError(status: number, body: string): GatewayError | undefined {
  if (status !== 400 || (!body.includes('content_filter') && !body.includes('ResponsibleAIPolicyViolation'))) return undefined;
  let parsed: AzureErrorBody;
  try {
    parsed = JSON.parse(body) as AzureErrorBody;
  } catch {
    return undefined;
  }
  const error = parsed?.error;
  const inner = error?.innererror;
  if (!error || (error.code !== 'content_filter' && inner?.code !== 'ResponsibleAIPolicyViolation')) return undefined;
  const triggered: string[] = [];
  for (const [category, result] of Object.entries(inner?.content_filter_result ?? {})) {
    if (!result || result.filtered !== true) continue;
    const how = result.severity && result.severity !== 'safe' ? ` (severity ${result.severity})` : result.detected ? ' (detected)' : '';
    triggered.push(category + how);
  }
  const categories = triggered.length > 0 ? triggered.join(', ') : 'unspecified categories';
  return new GatewayError('invalid_request', `Azure OpenAI's content filter refused the prompt: ${categories}`, {
    code: 'content_filter',
    param: typeof error.param === 'string' ? error.param : undefined,
    upstreamStatus: status,
  });
}
