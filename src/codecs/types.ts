// The contract every inbound codec (front door) implements. Pure: no I/O, no logging.
import type { GatewayError } from '../errors.js';
import type { MediaUrlRule } from '../ir/media-url.js';
import type { IrEvent, IrRequest, IrResult, Warning } from '../ir/types.js';
import type { GenerationDoor } from './doors.js';

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

/** What a door's WebSocket mode reads from a client text frame (its JSON, parsed once). */
export type SocketClientEvent =
  | { type: 'create'; body: Record<string, unknown>; generate: boolean }
  | { type: 'inject'; responseId: string; input: unknown[] }
  /** Known, and nothing to do (an acknowledgement). */
  | { type: 'ignored' };

/** A door's WebSocket mode: the client events, and the server events outside a response's stream. */
export interface SocketCodec {
  /** Throws GatewayError('invalid_request') naming the field for an event it does not take. */
  decodeClientEvent(event: unknown): SocketClientEvent;
  /** A failure outside a response's stream (refused before it started, a bad client event), with the
   * HTTP status it stands for. */
  encodeErrorEvent(err: GatewayError): { status: number; text: string };
  encodeInjectFailed(responseId: string, input: unknown[], code: 'response_already_completed' | 'response_not_found', message: string): string;
}

export interface InboundCodec {
  readonly protocol: GenerationDoor;
  /** The path the door serves (`POST`); also how a failure before routing finds its envelope. */
  readonly path: string;
  /** Response header carrying the request id (`request-id` for Anthropic, `x-request-id` for OpenAI). */
  readonly requestIdHeader: string;
  /** Prefix of the gateway-owned response id (`msg_` / `resp_` / `chatcmpl-`). */
  readonly responseIdPrefix: string;
  /** The frame a stream sends during upstream silence (Messages `ping` event / an SSE comment). */
  readonly keepAliveFrame: string;
  /** The request field of the caller's output limit, as warnings name it (`max_tokens`, …). */
  readonly outputLimitField: string;
  /** The door registers its own routes (Gemini: the model is in the path, so a codec is made per
   * request); `path` then only names them. */
  readonly ownRoutes?: boolean;
  /** The stream's content type when it is not `text/event-stream` (Gemini's JSON-array stream). */
  readonly streamContentType?: string;
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
  /** The door's WebSocket mode, when it has one (Responses). */
  readonly socket?: SocketCodec;
}

/** A door with a token-counting endpoint (Messages `count_tokens`, Responses `input_tokens`). */
export interface CountingCodec extends InboundCodec {
  /** The door's token-counting endpoint, as the request record names it. */
  readonly countEndpoint: 'count_tokens' | 'input_tokens' | 'countTokens';
  /** Validate and decode a token-counting request body (no `max_tokens` needed). */
  decodeCountRequest(body: unknown, warnings: Warning[], mediaUrls?: MediaUrlRule): IrRequest;
  /** The token-counting answer body. */
  encodeCount(inputTokens: number): string;
}
