// Where one generation's answer goes. The lanes and the event delivery write to a transport and never
// ask which one it is: an HTTP reply (this file: SSE or one JSON body), or one response on a WebSocket
// (socket-transport.ts: the same events, one text frame each). A new transport is a new implementation
// of these two interfaces, not a branch in the lanes.
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { InboundCodec } from '../codecs/types.js';
import type { GatewayError } from '../errors.js';
import type { AnswerRecord } from '../responses-store/stored-response.js';
import type { AnswerSaver } from './answer-saver.js';
import { sendError } from './reply-helpers.js';
import { SseReply } from './sse-reply.js';
import type { StreamSink } from './stream-sink.js';

export type { StreamSink } from './stream-sink.js';

/** The request record's and the metrics' name for a transport. */
export type TransportName = 'http' | 'websocket';

export interface AnswerTransport {
  readonly name: TransportName;
  /** The caller's request headers (forwarded-header rules; HTTP: this request's, socket: the upgrade's). */
  readonly headers: IncomingHttpHeaders;
  /** The answer is complete on the wire (a drain's cut leaves such a request alone). */
  readonly writableEnded: boolean;
  /** Nothing of the answer went out: a failure can still be answered whole (a status, or an error event). */
  readonly unanswered: boolean;
  /** The caller left before the answer was complete. Called at most once. */
  onCallerGone(cb: () => void): void;
  /** The event stream (the lane has committed). */
  openStream(heartbeatMs: number): StreamSink;
  /** A whole answer (a non-streamed caller). */
  sendJson(headers: Record<string, string>, body: string | Buffer): void;
  /** A failure before anything went out, in the door's envelope; returns the status recorded. */
  sendError(codec: InboundCodec, err: GatewayError, requestId: string, headers: Record<string, string> | undefined): number;
  /** Keep a finished Responses answer once the caller has its last byte: in the store when `stored`, and
   * wherever the transport keeps its own (a socket: its most recent response). */
  keepAnswer(saver: AnswerSaver, id: string, requestId: string, stored: boolean, build: () => AnswerRecord | undefined): void;
  /** True when the transport keeps answers the store does not (`store: false` over a socket). */
  readonly keepsUnstored: boolean;
  /** Let go of the request's parsed body (a committed stream holds its Generation for its whole life). */
  releaseBody(): void;
}

/** One HTTP request's reply: SSE for a streamed answer, one JSON body otherwise. */
export class HttpTransport implements AnswerTransport {
  readonly name = 'http';
  readonly keepsUnstored = false;

  constructor(
    private readonly request: FastifyRequest,
    private readonly reply: FastifyReply,
  ) {}

  get headers(): IncomingHttpHeaders {
    return this.request.headers;
  }

  get writableEnded(): boolean {
    return this.reply.raw.writableEnded;
  }

  get unanswered(): boolean {
    return !this.reply.sent && !this.reply.raw.headersSent;
  }

  onCallerGone(cb: () => void): void {
    const raw = this.reply.raw;
    raw.on('close', () => {
      if (!raw.writableFinished) cb();
    });
  }

  openStream(heartbeatMs: number): StreamSink {
    this.reply.hijack();
    return new SseReply(this.reply.raw, heartbeatMs);
  }

  sendJson(headers: Record<string, string>, body: string | Buffer): void {
    this.reply.code(200).headers(headers).type('application/json').send(body);
  }

  sendError(codec: InboundCodec, err: GatewayError, requestId: string, headers: Record<string, string> | undefined): number {
    // A limited key's rate-limit headers go on its refusals and failures too.
    if (headers !== undefined) this.reply.headers(headers);
    return sendError(this.reply, codec, err, requestId);
  }

  keepAnswer(saver: AnswerSaver, id: string, requestId: string, stored: boolean, build: () => AnswerRecord | undefined): void {
    if (stored) saver.saveAfter(this.reply.raw, id, requestId, build);
  }

  releaseBody(): void {
    (this.request as { body: unknown }).body = undefined;
  }
}
