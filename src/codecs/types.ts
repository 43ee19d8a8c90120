// The contract every inbound codec (front door) implements. Pure: no I/O, no logging.
import type { GatewayError } from '../errors.js';
import type { MediaUrlRule } from '../ir/media-url.js';
import type { IrEvent, IrRequest, IrResult, Warning } from '../ir/types.js';

export interface EncodeContext {
  /** The decoded caller request (model to echo, tools, reasoning summary wish, Responses echo fields). */
  request: IrRequest;
  /** Gateway-owned response id (`msg_…` for Messages, `resp_…` for Responses). */
  responseId: string;
  /** Unix seconds at which the gateway accepted the request. */
  createdAt: number;
  /** Translation warnings gathered so far (encoders may add their own). */
  warnings: Warning[];
  /** Responses: the answer's `completed_at` (Unix seconds) when fixed beforehand, so a stored answer
   * renders again exactly as the caller got it; else the clock at the end. */
  completedAt?: number;
}

export interface EncodedError {
  status: number;
  /** JSON body in the caller's protocol envelope. */
  body: string;
  headers: Record<string, string>;
}

export interface StreamEncoder {
  /** Render one IR event as zero or more SSE frames, passed to `write` (each frame whole). */
  event(ev: IrEvent): void;
  /** Keep-alive during upstream silence (Messages `ping` event / Responses SSE comment). */
  ping(): void;
  /** True once a terminal frame (message_stop / error; response.completed|incomplete|failed) was written. */
  readonly finished: boolean;
  /** Responses: the `completed_at` its terminal `response.completed` / `response.incomplete` frame
   * carried (encodeResult of the folded events with this `completedAt` renders that frame's response). */
  readonly completedAt?: number;
}

export interface InboundCodec {
  readonly protocol: 'messages' | 'responses';
  /** Response header carrying the request id (`request-id` for Anthropic, `x-request-id` for OpenAI). */
  readonly requestIdHeader: string;
  /** Prefix of the gateway-owned response id (`msg_` / `resp_`). */
  readonly responseIdPrefix: string;
  /** The frame a stream sends during upstream silence (Messages `ping` event / Responses SSE comment). */
  readonly keepAliveFrame: string;
  /** The door's token-counting endpoint, as the request record names it. */
  readonly countEndpoint: 'count_tokens' | 'input_tokens';
  /** Validate and decode a token-counting request body (no `max_tokens` needed). */
  decodeCountRequest(body: unknown, warnings: Warning[], mediaUrls?: MediaUrlRule): IrRequest;
  /** The token-counting answer body. */
  encodeCount(inputTokens: number): string;
  /** Validate (compiled TypeBox) and decode a parsed JSON body. Throws GatewayError('invalid_request',
   * message naming the field, { param }) on bad input. Unknown fields are kept in `extras` or reported
   * as warnings, never rejected. Every URL-sourced media part is checked with `mediaUrls` (the
   * routes pass the config's door rule; default https: and data: only) — see ir/media-url.ts. */
  decodeRequest(body: unknown, warnings: Warning[], mediaUrls?: MediaUrlRule): IrRequest;
  /** A complete result as the caller's JSON body. */
  encodeResult(result: IrResult, ctx: EncodeContext): string;
  /** A stream encoder writing SSE frames for IR events. */
  createStreamEncoder(ctx: EncodeContext, write: (frame: string) => void): StreamEncoder;
  /** An error in the caller's envelope, with its status and headers (retry-after, x-should-retry). */
  encodeError(err: GatewayError, requestId: string): EncodedError;
}
