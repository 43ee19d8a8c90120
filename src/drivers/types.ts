// The contract every upstream driver implements. encode/decode functions are pure; I/O lives in
// drivers/http-client.ts and the lanes in http/.
import type { GatewayError } from '../errors.js';
import type { MediaUrlRule } from '../ir/media-url.js';
import type { IrEvent, IrRequest, IrResult, Protocol, Warning } from '../ir/types.js';
import type { SseFrame } from './sse-parser.js';

export interface DriverOptions {
  /** Messages upstream: max_tokens when the caller gave no limit (Responses callers may omit it). */
  defaultMaxTokens: number;
  /** Chat upstream: which limit field the server knows (OpenAI: max_completion_tokens; most others: max_tokens). */
  maxTokensField: 'max_tokens' | 'max_completion_tokens';
  /** Chat upstream: send reasoning back as `reasoning_content` on assistant tool-call turns (DeepSeek). */
  echoReasoningContent: boolean;
  /** Chat upstream: role used for system text (`developer` only for OpenAI reasoning models). */
  systemRole: 'system' | 'developer';
}

export interface DriverTarget {
  /** The model name sent upstream. */
  model: string;
  apiKey?: string;
  /** Extra headers for the upstream (static config headers, forwarded `anthropic-beta`). */
  headers: Record<string, string>;
  options: DriverOptions;
  /** The provider's media-URL rule (ir/media-url.ts); absent = https: and data: only. Drivers whose
   * upstream fetches a URL with the operator's identity (Gemini `fileData.fileUri`) check it again. */
  mediaUrls?: MediaUrlRule;
}

export interface EncodedRequest {
  /** Path appended to the provider's base_url, e.g. "/v1/messages", "/responses", "/chat/completions". */
  path: string;
  /** Request headers (auth, version, content-type). */
  headers: Record<string, string>;
  /** JSON text. */
  body: string;
}

/** A target's sampling settings for the pass-through body (structurally the config's SamplingOverrides). */
export interface PassthroughSettings {
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  reasoningEffort?: string;
}

/** Caller request headers as Node gives them. */
export type CallerHeaders = Record<string, string | string[] | undefined>;

export interface EventDecoder {
  /** One upstream SSE frame → zero or more IR events through the decoder's `emit`. Never throws:
   * malformed or error frames become an IR `error` event. */
  frame(frame: SseFrame): void;
  /** Upstream body ended. Emits an `error` event if the stream ended without its terminal frame. */
  end(): void;
}

export interface Driver {
  readonly protocol: Protocol;
  /** The smallest output limit the upstream accepts, when above 1 (Responses: 16). A caller asking for
   * less gets the answer cut to its own limit by the lane (ir/output-cap.ts, mapping.md §15.54). */
  readonly minOutputTokens?: number;
  /** IR → upstream request. Throws GatewayError('invalid_request', …, {param}) for what cannot cross;
   * pushes a Warning for everything dropped or downgraded. */
  encodeRequest(req: IrRequest, target: DriverTarget, stream: boolean, warnings: Warning[]): EncodedRequest;
  /** Streaming decoder for one upstream response. Emits IR events in order: response-start, blocks,
   * usage, finish (or error). Tool-call ids are caller-portable (ir/tool-ids.ts toCallerId). */
  createEventDecoder(req: IrRequest, emit: (ev: IrEvent) => void): EventDecoder;
  /** Non-streamed upstream JSON body → IR result. Throws GatewayError on a malformed body. */
  decodeResult(json: unknown, req: IrRequest): IrResult;
  /** Upstream error response → GatewayError (kind from status and the vendor's error type; message kept;
   * retry-after, request id and context-overflow wording preserved). */
  decodeError(status: number, headers: Record<string, string | string[] | undefined>, body: string): GatewayError;
  /** The data of an upstream stream frame that reports a failure (Messages `error`; Responses `error`
   * or `response.failed`) → GatewayError, with the same table as the event decoder, so the
   * pass-through relay and the translation lane classify a failure alike. */
  decodeStreamError(data: string): GatewayError;
  /** Caller headers meaningful to this upstream (e.g. `anthropic-beta`). `door` is the caller's front
   * door protocol: some headers apply only when the caller speaks this upstream's family. */
  forwardedHeaders(caller: CallerHeaders, door: Protocol): Record<string, string> | undefined;
  /** Pass-through lane: the caller's own body (same protocol) with only `model` and the target's
   * defaults (when unset) and overrides (always) replaced; unknown fields survive. `stream`: the
   * caller asked for a stream (Gemini addresses that in the path, not the body). Undefined when this
   * protocol is never a front door. */
  passthroughRequest?(body: Record<string, unknown>, target: DriverTarget, defaults: PassthroughSettings, overrides: PassthroughSettings, stream: boolean): EncodedRequest;
  /** The upstream's token-counting request, or undefined when the protocol has no counter (then the
   * gateway estimates). `callerBody` is the caller's own body when it came in through this protocol's
   * door (forwarded as is); otherwise the request is encoded from the IR. */
  countTokensRequest(req: IrRequest, target: DriverTarget, callerBody: Record<string, unknown> | undefined): EncodedRequest | undefined;
  /** The count in the upstream's token-counting answer, when it is not `input_tokens` (Gemini's
   * `totalTokens`). */
  decodeCount?(json: unknown): number | undefined;
}
