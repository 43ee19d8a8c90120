// The platform contract: how a cloud addresses, authenticates and frames a protocol that a driver
// already encoded. A driver knows the protocol (Messages, Responses, Chat); a platform knows the cloud
// that serves it (Amazon Bedrock, Google Vertex AI, Azure OpenAI): URL, auth, body envelope, stream
// framing, error shapes. The first-party APIs have no platform. See docs/platforms.md.
import type { Readable } from 'node:stream';
import type { GatewayError } from '../errors.js';

/** What the request is for: an answer, or a token count (`count_tokens`). */
export type Operation = 'generate' | 'count_tokens';

/** One upstream request as the protocol's driver encoded it for the first-party API. */
export interface PlatformRequest {
  /** The first-party path, e.g. `/v1/messages`; a platform returns its own (relative to the provider's base_url). */
  path: string;
  headers: Record<string, string>;
  /** JSON text. */
  body: string;
  /** The upstream model: a Bedrock model id or inference profile, a Vertex model, an Azure deployment. */
  model: string;
  stream: boolean;
  operation: Operation;
}

export interface Platform {
  /** The platform's request: path, body envelope and auth (a signature or a token, fetched and cached by
   * the platform). A credential failure (no credentials, a failed token refresh, a signing error) throws
   * GatewayError('bad_gateway', …, { upstreamStatus: 401 }) naming the provider and never a secret: the
   * caller's key is not at fault, the deployment's circuit counts it, and the router falls back. */
  prepare(req: PlatformRequest): PlatformRequest | Promise<PlatformRequest>;
  /** A successful streamed answer in the platform's framing → the protocol's own SSE bytes (Bedrock's
   * event stream). Absent: the body is the protocol's SSE already. */
  streamBody?(body: Readable): Readable;
  /** The platform's own error shapes; undefined leaves the answer to the protocol driver. A refusal of
   * the gateway's credentials is `bad_gateway` with fixed text (the cloud's own text, which names
   * projects, resources or principals, goes in `cause`: logged, never sent to the caller). */
  decodeError?(status: number, headers: Record<string, string | string[] | undefined>, body: string): GatewayError | undefined;
  /** A successful `count_tokens` answer → the input token count, when the platform's shape differs from
   * the protocol's `{input_tokens}`. */
  decodeCount?(json: unknown): number | undefined;
}
