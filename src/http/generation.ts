// The per-request context of one generation, shared by the entry point and every lane: what the
// caller sent, who the caller is, the route plan, and the one-way "committed" switch that ends
// retries and fallbacks once a byte has gone to the caller.
import { headerText } from './header-value.js';
import { callerJsonOf } from '../drivers/caller-json.js';
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Caller } from '../access/caller.js';
import type { AbortSwitch } from '../drivers/abort-switch.js';
import type { Lease } from '../state/types.js';
import type { InboundCodec } from '../codecs/types.js';
import type { IrRequest, Warning } from '../ir/types.js';
import type { RequestRecord } from '../observability/request-record.js';
import type { RoutePlan, RouteTarget } from '../router/model-table.js';
import type { StoredConversation } from '../responses-store/stored-response.js';
import type { ReferencedItems } from './referenced-items.js';
import type { AppContext } from './context.js';
import type { ClientGoneSwitch } from './client-gone.js';
import { HttpTransport, type AnswerTransport } from './answer-transport.js';

export interface GenerationInit {
  ctx: AppContext;
  codec: InboundCodec;
  ir: IrRequest;
  body: Record<string, unknown>;
  caller: Caller;
  rec: RequestRecord;
  /** Where the answer goes; without one, the HTTP reply of `request`. */
  transport?: AnswerTransport;
  request?: FastifyRequest;
  reply?: FastifyReply;
  warnings: Warning[];
  requestId: string;
  plan: RoutePlan;
  clientGone: ClientGoneSwitch;
  /** The stored response `previous_response_id` named, when the gateway has it. */
  previous?: StoredConversation;
  /** The caller's body before its `item_reference`s were expanded, and where the items came from. */
  callerBody?: Record<string, unknown>;
  references?: ReferencedItems;
}

export class Generation {
  readonly ctx: AppContext;
  readonly codec: InboundCodec;
  ir: IrRequest;
  /** The caller's parsed body, forwarded (model replaced) on the pass-through lane. */
  body: Record<string, unknown>;
  /** Who is calling; `caller.name` owns what the request stores (the anonymous caller when open). */
  readonly caller: Caller;
  readonly rec: RequestRecord;
  /** Where the answer goes (an HTTP reply, or one response on a WebSocket). */
  readonly transport: AnswerTransport;
  /** Warnings of this request; replaced per attempt by the lanes (decode warnings first). */
  warnings: Warning[];
  /** How many of `warnings` came from decoding the caller's request (kept across attempts). */
  baseWarningCount: number;
  readonly requestId: string;
  /** Gateway-owned response id in the caller's protocol (msg_… / resp_…). */
  readonly responseId: string;
  readonly createdAt: number;
  readonly plan: RoutePlan;
  /** Aborted when the caller disconnects (the router stops retrying; lanes stop writing). */
  readonly clientGone: ClientGoneSwitch;
  /** The upstream request in flight (lanes/upstream-call.ts): the caller disconnecting aborts it. */
  upstreamAbort: AbortSwitch | undefined = undefined;
  /** The stored previous response (its turns are already at the front of `ir.turns`); set after admission. */
  previous: StoredConversation | undefined;
  /** The caller's own body (references unexpanded; `body` when it had none). */
  callerBody: Record<string, unknown>;
  readonly references: ReferencedItems | undefined;
  /** The deployment of the attempt in progress (set by the entry point around each attempt). */
  attemptTarget: RouteTarget | undefined;
  /** The key's rate-limit headers from admission (request-seams.ts): on every answer; empty without limits. */
  accessHeaders: Record<string, string> | undefined = undefined;
  /** Concurrency leases taken at admission, given back by accounting. */
  leases: readonly Lease[] = NO_LEASES;
  /** Set when the drain's deadline ends this request (http/in-flight.ts): no further attempt. */
  shutdownCut = false;
  private isCommitted = false;
  /** The request body's text, taken when the body was let go before a stored answer's save. */
  requestJson: string | undefined = undefined;

  /** Socket transports: the connection's most recent response, tried before the store (previous-response.ts). */
  readonly localPrevious: ((id: string) => StoredConversation | undefined) | undefined;

  constructor(init: GenerationInit, responseId: string, localPrevious?: (id: string) => StoredConversation | undefined) {
    this.localPrevious = localPrevious;
    this.ctx = init.ctx;
    this.codec = init.codec;
    this.ir = init.ir;
    this.body = init.body;
    this.caller = init.caller;
    this.rec = init.rec;
    this.transport = init.transport ?? new HttpTransport(init.request!, init.reply!);
    this.warnings = init.warnings;
    this.baseWarningCount = init.warnings.length;
    this.requestId = init.requestId;
    this.responseId = responseId;
    this.createdAt = Math.floor(Date.now() / 1000);
    this.plan = init.plan;
    this.clientGone = init.clientGone;
    this.previous = init.previous;
    this.callerBody = init.callerBody ?? init.body;
    this.references = init.references;
    this.attemptTarget = undefined;
  }

  /** The request was decoded again (its item references expanded): these are its decode warnings. */
  setDecodeWarnings(warnings: Warning[]): void {
    this.warnings = warnings;
    this.baseWarningCount = warnings.length;
  }

  /** True once any byte (status line) went to the caller: no retry or fallback after that. */
  get committed(): boolean {
    return this.isCommitted;
  }

  /**
   * The lane is about to send the caller its status line. The first call also marks the deployment
   * healthy: a half-open probe that streams for minutes must not hold the circuit half-open (and the
   * deployment unavailable) until the stream ends.
   */
  commit(): void {
    if (this.isCommitted) return;
    this.isCommitted = true;
    if (this.attemptTarget) this.ctx.health.success(this.attemptTarget.deployment);
  }

  /**
   * For a committed answer: no attempt will encode the request again and nothing
   * after the answer reads the caller's parsed body (also fastify's `request.body`), so it is let go.
   * A stream holds its Generation for its whole life: otherwise each open stream keeps its
   * conversation as objects, and with many streams those outlive young-generation GCs and pile up in
   * the old generation.
   */
  releaseCallerBody(): void {
    // A stored answer keeps the request as its text (one string), not as the objects parsed from it.
    if (this.body !== RELEASED_BODY && this.keepsAnswer) this.requestJson ??= this.requestText();
    this.body = RELEASED_BODY;
    this.callerBody = RELEASED_BODY;
    this.transport.releaseBody();
  }

  /** The Responses door keeps answers unless the caller said `store: false`. With storing off
   * (`max_bytes: 0`) the answer's ids are still claimed for its key (responses-repository.ts). */
  get keepsAnswer(): boolean {
    return this.codec.protocol === 'responses' && (this.storesAnswer || this.transport.keepsUnstored);
  }

  /** The answer goes to the store (`store` is not false). */
  get storesAnswer(): boolean {
    return this.ir.extras.responses?.store !== false;
  }

  /** The caller's request headers (forwarded-header rules). */
  get headers(): IncomingHttpHeaders {
    return this.transport.headers;
  }

  /** The request body as decoded (references expanded), for the stored record: the caller's own text
   * when the object is still that text's; the text taken when the body was let go. */
  requestText(): string {
    return this.requestJson ?? callerJsonOf(this.body)?.text ?? JSON.stringify(this.body);
  }

  /** releaseCallerBody, and the decoded conversation, system prompt and tools (the pass-through lane,
   * which encodes nothing from the IR once the request is sent). */
  releaseRequest(): void {
    this.releaseCallerBody();
    this.ir = { ...this.ir, system: [], turns: [], tools: [] };
  }

  /** Headers every answer carries (request id, served-by). */
  baseHeaders(target: RouteTarget): Record<string, string> {
    const h: Record<string, string> = {
      [this.codec.requestIdHeader]: this.requestId,
      'x-switchyard-provider': target.provider.name,
      'x-switchyard-model': headerText(target.model),
      'x-switchyard-attempts': String(this.rec.attempts),
    };
    // A stream that is not SSE (Gemini's JSON array) says so; a whole answer is typed by the lane.
    if (this.codec.streamContentType !== undefined && this.ir.stream) h['content-type'] = this.codec.streamContentType;
    if (this.warnings.length) h['x-switchyard-warnings'] = warningsHeader(this.warnings);
    if (this.accessHeaders !== undefined) Object.assign(h, this.accessHeaders);
    return h;
  }
}

const NO_LEASES: readonly Lease[] = Object.freeze([]);
const RELEASED_BODY: Record<string, unknown> = Object.freeze({});

function warningsHeader(warnings: Warning[]): string {
  const fields = [...new Set(warnings.map((w) => w.field))].join(',');
  return (warnings.length + '; ' + fields).slice(0, 512).replace(/[^\x20-\x7e]/g, '?');
}
