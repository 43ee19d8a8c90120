// Amazon Bedrock serving Anthropic Messages (docs/platforms.md "Amazon Bedrock"): the Messages driver's
// request goes to `POST /model/{modelId}/invoke` (or `/invoke-with-response-stream`, or CountTokens'
// `/count-tokens`) with the body Bedrock takes (bedrock-body.ts), signed with SigV4 from the standard
// AWS credential chain (aws-sigv4.ts) or sent with a Bedrock API key as a Bearer token. Streams come
// back as AWS event-stream frames and leave as Anthropic SSE (bedrock-stream.ts); errors are read in
// Bedrock's shapes (bedrock-errors.ts).
import type { Readable } from 'node:stream';
import type { ProviderConfig } from '../config/types.js';
import { GatewayError } from '../errors.js';
import type { IdentityProvider } from './aws-credentials.js';
import { createSigV4, type SigV4 } from './aws-sigv4.js';
import { credentialFetchBoundMs } from './credential-deadline.js';
import { countTokensBody, invokeBody } from './bedrock-body.js';
import { decodeBedrockError, isCredentialError } from './bedrock-errors.js';
import { bedrockStreamBody, eventStreamCodec, loadEventStreamCodec } from './bedrock-stream.js';
import type { Platform, PlatformRequest } from './types.js';

/** Headers of the first-party API that Bedrock does not take: auth, and what moved into the body. */
const DROPPED = new Set(['x-api-key', 'authorization', 'anthropic-version', 'anthropic-beta', 'host', 'content-length']);

/** Errors whose message says CountTokens does not serve this model (inference profiles, some models):
 * the count route then estimates instead of failing the caller. */
const NO_COUNTER = /support(?:s)? counting tokens|count(?:ing)? tokens is not supported/i;

export interface BedrockOptions {
  /** In place of the default credential chain (tests, embedders). */
  identityProvider?: IdentityProvider;
}

export function createBedrockPlatform(provider: ProviderConfig, options: BedrockOptions = {}): Platform {
  const settings = provider.platform!;
  const host = new URL(provider.origin).host;
  const bearer = settings.auth === 'api_key';
  let sigv4: SigV4 | undefined;
  let sigv4Load: Promise<SigV4> | undefined;
  // Model ids repeat; their escaped form is made once.
  const escaped = new Map<string, string>();

  /** The signer, made once; a failed load (the AWS packages missing) is retried by the next request. */
  const loadSigner = (): Promise<SigV4> =>
    createSigV4({ region: settings.region, service: 'bedrock', provider: options.identityProvider, fetchTimeoutMs: credentialFetchBoundMs(provider.timeouts.connectMs) }).then(
      (s) => (sigv4 = s),
      (err: unknown) => {
        sigv4Load = undefined;
        throw err;
      },
    );

  const modelPath = (model: string): string => {
    let id = escaped.get(model);
    if (id === undefined) {
      id = '/model/' + encodeURIComponent(model);
      if (escaped.size < 1000) escaped.set(model, id);
    }
    return id;
  };

  return {
    async prepare(req: PlatformRequest): Promise<PlatformRequest> {
      if (eventStreamCodec() === undefined) await loadEventStreamCodec();
      const given = req.headers;
      const counting = req.operation === 'count_tokens';
      let body = invokeBody(req.body, given['anthropic-beta'], counting);
      let path = modelPath(req.model);
      if (counting) {
        path += '/count-tokens';
        body = countTokensBody(body);
      } else {
        path += req.stream ? '/invoke-with-response-stream' : '/invoke';
      }
      let headers: Record<string, string> = { 'content-type': 'application/json' };
      for (const name in given) {
        const lower = name.toLowerCase();
        if (!DROPPED.has(lower) && lower !== 'content-type') headers[lower] = given[name]!;
      }
      if (bearer) {
        // The driver put the provider's key (rotation included) where Anthropic wants it.
        const key = given['x-api-key'] ?? provider.apiKeys[0] ?? '';
        headers.authorization = 'Bearer ' + key;
      } else {
        const signer = sigv4 ?? (await (sigv4Load ??= loadSigner()));
        headers = await signer.sign({ method: 'POST', host, path: provider.basePath + path, headers, body });
      }
      return { path, headers, body, model: req.model, stream: req.stream, operation: req.operation };
    },

    streamBody(body: Readable): Readable {
      return bedrockStreamBody(body, eventStreamCodec()!);
    },

    decodeError(status, headers, body) {
      const err = decodeBedrockError(provider.name, status, headers, body);
      if (err === undefined) return undefined;
      const type = headers['x-amzn-errortype'];
      // Refused or expired credentials: fetch fresh ones before the next request rather than reuse them.
      if (sigv4 && isCredentialError(Array.isArray(type) ? type[0] : type)) sigv4.credentials.invalidate();
      if (err.kind === 'invalid_request' && NO_COUNTER.test(err.message)) {
        return new GatewayError('not_found', err.message, { upstreamStatus: status });
      }
      return err;
    },

    decodeCount(json: unknown): number | undefined {
      const n = (json as { inputTokens?: unknown } | null)?.inputTokens;
      return typeof n === 'number' ? n : undefined;
    },
  };
}
