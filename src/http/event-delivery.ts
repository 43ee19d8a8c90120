// Delivers a source of IR events to the caller, in the caller's protocol. Streaming callers: peek the
// first event (an early failure still gets a real HTTP status and may fall back), then commit the SSE
// headers and encode every event as it arrives. Non-streamed callers: fold the events and answer once.
import type { EncodeContext, StreamEncoder } from '../codecs/types.js';
import { ERROR_KINDS, GatewayError, type GatewayErrorKind } from '../errors.js';
import { EventFolder } from '../ir/fold-events.js';
import { resultToEvents } from '../ir/result-to-events.js';
import type { IrEvent, IrResult } from '../ir/types.js';
import type { RouteTarget } from '../router/model-table.js';
import type { Generation } from './generation.js';
import type { StreamSink } from './stream-sink.js';
import { resultItemIds } from '../codecs/openai-responses/encode-result.js';
import { completedAtNow } from '../codecs/openai-responses/response-object.js';
import { renderedAnswer } from './stored-answer.js';

/** A producer of IR events (an upstream stream being decoded, or the in-process demo). */
export interface EventSource {
  /** Stop reading (backpressure) until resume(). */
  pause(): void;
  resume(): void;
  /** Stop producing; used when the caller left or the peek failed. */
  cancel(): void;
}

export class EventDelivery {
  private encoder: StreamEncoder | undefined;
  private sse: StreamSink | undefined;
  /** Folds the events when the answer is needed whole (non-streamed caller, or kept for the store). */
  private readonly folds: boolean;
  private folder: EventFolder | undefined;
  private terminal = false;
  private settled = false;
  private resolveFn!: () => void;
  private rejectFn!: (err: GatewayError) => void;
  readonly done: Promise<void>;
  source: EventSource | undefined;
  private readonly encodeCtx: EncodeContext;
  private readonly keepForStore: boolean;
  /** performance.now() at the start of the source's current chunk; 0 outside one (see beginChunk). */
  private chunkAt = 0;
  /** Some event of the current chunk was encoded for the caller. */
  private chunkEncoded = false;
  /** Let go of the caller's conversation once the encoder has started (see releaseConversation). */
  private releasePending = false;

  constructor(
    private readonly gen: Generation,
    private readonly target: RouteTarget,
  ) {
    this.done = new Promise<void>((resolve, reject) => {
      this.resolveFn = resolve;
      this.rejectFn = reject;
    });
    this.encodeCtx = { request: gen.ir, responseId: gen.responseId, createdAt: gen.createdAt, warnings: gen.warnings };
    this.keepForStore = gen.keepsAnswer;
    // Created with the first event: an answer delivered whole (deliverResult) needs none.
    this.folds = !gen.ir.stream || this.keepForStore;
  }

  /**
   * The source is about to emit the events of one upstream chunk (typically several, all written to the
   * caller in one socket write at the end of this turn): they share one clock reading for the event-gap
   * metric and the first-token time, and the chunk's translation (decode and encode) is timed once as
   * the request's encode time, instead of two clock reads around every event.
   */
  beginChunk(): void {
    this.chunkAt = performance.now();
    this.chunkEncoded = false;
  }

  endChunk(): void {
    if (this.chunkEncoded) this.gen.rec.encodeMs += performance.now() - this.chunkAt;
    this.chunkAt = 0;
  }

  /** The event sink handed to the source. Never throws. */
  readonly emit = (ev: IrEvent): void => {
    if (this.terminal) return;
    const rec = this.gen.rec;
    switch (ev.type) {
      case 'text-delta':
      case 'reasoning-delta':
      case 'tool-call-delta':
        if (rec.tFirstToken === 0) rec.tFirstToken = this.chunkAt !== 0 ? this.chunkAt : performance.now();
        break;
      case 'usage':
        rec.usage = ev.usage;
        break;
      case 'finish':
        rec.finishReason = ev.finish.reason;
        this.terminal = true;
        break;
      case 'error':
        rec.errorKind = ev.error.kind;
        this.terminal = true;
        // The upstream's text goes to the caller: masked like a log line.
        ev = { type: 'error', error: { ...ev.error, message: this.gen.ctx.obs.redact(ev.error.message) } };
        break;
      default:
        break;
    }
    if (this.folds) (this.folder ??= new EventFolder()).push(ev);
    if (!this.gen.ir.stream) return;

    if (!this.encoder) {
      if (ev.type === 'error') {
        // Nothing reached the caller yet: a real status, and the router may fall back.
        this.source?.cancel();
        this.fail(new GatewayError(asKind(ev.error.kind), ev.error.message));
        return;
      }
      this.commitStream();
    }
    if (this.chunkAt !== 0) {
      this.encoder!.event(ev);
      this.chunkEncoded = true;
      this.gen.ctx.obs.eventWritten(rec, this.chunkAt);
      if (this.releasePending) this.releaseConversation();
      return;
    }
    // Outside a chunk (a non-streamed upstream answer replayed as events, the demo, the closing events).
    const t0 = performance.now();
    this.encoder!.event(ev);
    rec.encodeMs += performance.now() - t0;
    this.gen.ctx.obs.eventWritten(rec, t0);
    if (this.releasePending) this.releaseConversation();
  };

  /**
   * After the encoder's first event (its opening frame read the request: the model, the Messages
   * door's input-token estimate; the Responses door's echo is built when the encoder is made), an
   * answer that is not stored needs nothing more of the conversation: an open stream then holds
   * ~4 KiB less (the conversation's texts and objects) for its whole life.
   */
  private releaseConversation(): void {
    this.releasePending = false;
    this.gen.releaseRequest();
    this.encodeCtx.request = this.gen.ir;
  }

  /**
   * A complete answer (a non-streamed upstream's). A streaming caller gets it as the events a stream
   * would have carried; any other is answered with it directly: folding its events would only rebuild
   * the same result.
   */
  deliverResult(result: IrResult): void {
    if (this.gen.ir.stream) {
      resultToEvents(result, this.emit);
      this.end();
      return;
    }
    if (this.settled) return;
    const rec = this.gen.rec;
    rec.usage = result.usage;
    rec.finishReason = result.finish.reason;
    this.terminal = true;
    this.sendResult(result);
  }

  /** The source has no more events. */
  end(): void {
    if (this.settled) return;
    if (!this.gen.ir.stream) {
      const folder = this.folder ?? new EventFolder();
      if (folder.error) {
        this.fail(new GatewayError(asKind(folder.error.kind), folder.error.message));
        return;
      }
      if (!folder.finish) {
        this.fail(new GatewayError('api_error', 'upstream answer ended before it was complete'));
        return;
      }
      this.sendResult(folder.result());
      return;
    }
    if (!this.encoder) {
      this.fail(new GatewayError('api_error', 'upstream answer ended before it started'));
      return;
    }
    if (!this.encoder.finished && !this.gen.clientGone.signal.aborted) {
      this.gen.rec.errorKind ??= 'api_error';
      this.encoder.event({ type: 'error', error: { kind: 'api_error', message: 'upstream stream ended unexpectedly' } });
    }
    this.sse!.end();
    const folder = this.folder;
    // The record renders the terminal frame's response again when read: the parts and that frame's completed_at.
    if (folder && !folder.error && folder.finish && this.encoder.completedAt !== undefined) this.remember(folder.result(), this.encoder.completedAt);
    this.settle();
  }

  /** A failure of the source itself (transport error, timeout, client gone). */
  sourceFailed(err: GatewayError): void {
    if (this.settled) return;
    if (this.encoder) {
      if (!this.terminal && !this.gen.clientGone.signal.aborted) {
        this.terminal = true;
        this.gen.rec.errorKind = err.kind;
        this.encoder.event({ type: 'error', error: { kind: err.kind, message: this.gen.ctx.obs.redact(err.message) } });
      }
      this.sse!.end();
      this.settle();
      return;
    }
    this.fail(err);
  }

  private commitStream(): void {
    const gen = this.gen;
    gen.commit();
    // No retry after commit; the encoder reads the IR for its opening frame, then it goes too (a
    // stored answer keeps the body's text: Generation.releaseCallerBody).
    gen.releaseCallerBody();
    this.releasePending = true;
    const sse = gen.transport.openStream(gen.ctx.config.server.heartbeatMs);
    this.sse = sse;
    gen.rec.status = 200;
    gen.ctx.obs.streamOpened(gen.rec);
    const source = this.source;
    this.encoder = gen.codec.createStreamEncoder(this.encodeCtx, (frame) => {
      if (!sse.write(frame) && source) {
        source.pause();
        sse.onDrain(() => source.resume());
      }
    });
    const encoder = this.encoder;
    sse.open(gen.baseHeaders(this.target), () => {
      if (!encoder.finished) encoder.ping();
    });
  }

  private sendResult(result: IrResult): void {
    const gen = this.gen;
    const t0 = performance.now();
    // A stored answer is rendered again when read: its completed_at is fixed here, once.
    const completedAt = completedAtNow(gen.createdAt);
    this.encodeCtx.completedAt = completedAt;
    const body = gen.codec.encodeResult(result, this.encodeCtx);
    gen.rec.encodeMs += performance.now() - t0;
    gen.commit();
    gen.rec.status = 200;
    gen.transport.sendJson(gen.baseHeaders(this.target), body);
    this.remember(result, completedAt);
    this.settle();
  }

  /**
   * Keep the finished conversation for a later `previous_response_id`, and its output items for
   * `item_reference`: the parts, finish and usage, from which the response the caller got (with
   * `completedAt`, the body's or the terminal frame's) is rendered again when read. Built and saved
   * after the caller's last byte.
   */
  private remember(result: IrResult, completedAt: number): void {
    if (!this.keepForStore) return;
    const gen = this.gen;
    const target = this.target;
    gen.transport.keepAnswer(gen.ctx.saver, gen.responseId, gen.requestId, gen.storesAnswer, () => {
      // The facts of what encodeResult renders, not a parse of it (the door is the Responses one).
      const facts = { id: gen.responseId, createdAt: gen.createdAt, outputItemIds: resultItemIds(result, gen.responseId) };
      return renderedAnswer(gen, target, facts, result, completedAt);
    });
  }

  private fail(err: GatewayError): void {
    if (this.settled) return;
    this.settled = true;
    this.rejectFn(err);
  }

  private settle(): void {
    if (this.settled) return;
    this.settled = true;
    this.resolveFn();
  }
}

const KINDS = new Set<string>(ERROR_KINDS);

function asKind(kind: string): GatewayErrorKind {
  return (KINDS.has(kind) ? kind : 'api_error') as GatewayErrorKind;
}
