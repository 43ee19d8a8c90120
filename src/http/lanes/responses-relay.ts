// Pass-through relay for OpenAI Responses streams: frames re-emitted as they arrive; the lifecycle
// frames (created / in_progress / completed / incomplete / failed) get the caller's model name back
// and feed the usage tap; finished items are remembered so a stream cut short can still end with a
// proper `response.failed` (Codex fails a turn that never sees a terminal event). Failure frames are
// classified by the driver (Driver.decodeStreamError), as in the translation lane.
import { maskedForCaller } from '../caller-safe-error.js';
import { failedCodeFor, streamErrorTypeFor } from '../../codecs/openai-responses/map-finish.js';
import { sseFrame } from '../../codecs/sse.js';
import type { SseFrame } from '../../drivers/sse-parser.js';
import { textData, type FrameData } from '../../drivers/sse-splitter.js';
import type { GatewayError } from '../../errors.js';
import type { RequestRecord } from '../../observability/request-record.js';
import { answerWithModel, spliceNestedModel } from './answer-model.js';
import type { Relay } from './relay.js';
import { responsesUsage } from './usage-taps.js';

const LIFECYCLE = new Set(['response.created', 'response.in_progress', 'response.queued', 'response.completed', 'response.incomplete', 'response.failed']);
const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed']);

export class ResponsesRelay implements Relay {
  finished = false;
  finalResponse: Record<string, unknown> | undefined;
  private frames = 0;
  private snapshot: Record<string, unknown> | undefined;
  /** Finished items' frames, unparsed: read only if the stream is cut short (closingFrames). */
  private readonly itemFrames: string[] = [];

  constructor(
    private readonly rec: RequestRecord,
    private readonly callerModel: string,
    private readonly rewriteModel: boolean,
    /** The driver's classification of a failure frame's data. */
    private readonly classify: (data: string) => GatewayError,
    /** Masks secrets in failure text bound for the caller (the upstream may quote a key). */
    private readonly mask: (text: string) => string = (text) => text,
  ) {}

  earlyError(frame: SseFrame): GatewayError | undefined {
    const type = frame.event ?? typeOf(frame.data);
    if (type !== 'error' && type !== 'response.failed') return undefined;
    return this.classify(frame.data);
  }

  frame(frame: SseFrame): string {
    const type = frame.event ?? typeOf(frame.data);
    if (type === undefined) {
      this.frames++;
      return sseFrame('message', frame.data);
    }
    return this.tap(type, textData(frame.data)) ?? sseFrame(type, frame.data);
  }

  tap(type: string, data: FrameData): string | undefined {
    this.frames++;
    if (LIFECYCLE.has(type)) {
      const raw = data.text();
      const terminal = TERMINAL.has(type);
      let text = this.rewriteModel ? spliceNestedModel(raw, 'response', this.callerModel) : undefined;
      // A frame in between (in_progress, …) whose model could be spliced needs no parsing at all; the
      // first one (the snapshot), the terminal one (usage, the answer) and any that could not be
      // spliced do.
      if (this.snapshot && !terminal && (text !== undefined || !this.rewriteModel)) return text === undefined ? undefined : sseFrame(type, text);
      const obj = safeParse(raw) as { response?: Record<string, unknown> } | undefined;
      if (!obj?.response) return undefined;
      const r = obj.response;
      if (this.rewriteModel) {
        r.model = this.callerModel;
        text ??= JSON.stringify(obj);
      }
      if (!this.snapshot) this.snapshot = r;
      if (terminal) {
        this.finished = true;
        this.rec.usage = responsesUsage(r.usage as never);
        if (type === 'response.failed') {
          text ??= raw;
          this.rec.errorKind = this.classify(text).kind;
          const masked = this.mask(text);
          if (masked !== text) return sseFrame(type, masked);
        } else {
          this.finalResponse = r;
          this.rec.finishReason = type === 'response.completed' ? 'completed' : `incomplete:${(r.incomplete_details as { reason?: string } | null)?.reason ?? ''}`;
        }
      }
      return text === undefined ? undefined : sseFrame(type, text);
    }
    if (type === 'response.output_item.done') {
      this.itemFrames.push(data.text());
    } else if (type.endsWith('.delta')) {
      if (this.rec.tFirstToken === 0) this.rec.tFirstToken = performance.now();
    } else if (type === 'error') {
      const text = data.text();
      this.rec.errorKind = this.classify(text).kind;
      const masked = this.mask(text);
      if (masked !== text) return sseFrame(type, masked);
    }
    return undefined;
  }

  result(text: string, obj: Record<string, unknown>): string {
    this.rec.usage = responsesUsage(obj.usage as never);
    this.rec.finishReason = typeof obj.status === 'string' ? obj.status : undefined;
    return this.rewriteModel ? answerWithModel(text, obj, this.callerModel) : text;
  }

  private finishedItems(): unknown[] {
    const items: unknown[] = [];
    for (const data of this.itemFrames) {
      const item = itemOf(data);
      if (item) items.push(item);
    }
    return items;
  }

  closingFrames(unmasked: GatewayError): string {
    const err = maskedForCaller(unmasked, this.mask);
    this.finished = true;
    // The same codes as the translation lane's encoder, so a caller sees one failure shape.
    const code = failedCodeFor(err.kind);
    const errorType = streamErrorTypeFor(err.kind);
    const seq = this.frames;
    const errorFrame = sseFrame(
      'error',
      JSON.stringify({ type: 'error', sequence_number: seq, code, message: err.message, param: null, error: { type: errorType, code, message: err.message, param: null } }),
    );
    const response = {
      ...(this.snapshot ?? { id: 'resp_unknown', object: 'response', created_at: Math.floor(Date.now() / 1000), model: this.callerModel }),
      status: 'failed',
      error: { code, message: err.message },
      incomplete_details: null,
      output: this.finishedItems(),
      usage: null,
    };
    return errorFrame + sseFrame('response.failed', JSON.stringify({ type: 'response.failed', sequence_number: seq + 1, response }));
  }
}

function itemOf(data: string): unknown {
  return (safeParse(data) as { item?: unknown } | undefined)?.item;
}

function typeOf(data: string): string | undefined {
  const obj = safeParse(data) as { type?: string } | undefined;
  return typeof obj?.type === 'string' ? obj.type : undefined;
}

function safeParse(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    return undefined;
  }
}
