// Pass-through relay for Anthropic Messages streams: frames are relayed as they arrive, untouched
// except `message.model` in message_start (the caller's name is echoed). A tap reads usage, the stop
// reason and errors from the few frames that carry them; other frames are never JSON-parsed. Error
// frames are classified by the driver (Driver.decodeStreamError), as in the translation lane.
import { maskedForCaller } from '../caller-safe-error.js';
import { sseFrame } from '../../codecs/sse.js';
import type { SseFrame } from '../../drivers/sse-parser.js';
import { textData, type FrameData } from '../../drivers/sse-splitter.js';
import type { GatewayError } from '../../errors.js';
import type { RequestRecord } from '../../observability/request-record.js';
import { answerWithModel, spliceNestedModel } from './answer-model.js';
import type { Relay } from './relay.js';
import { mergeAnthropicUsage } from './usage-taps.js';

export class MessagesRelay implements Relay {
  finished = false;

  constructor(
    private readonly rec: RequestRecord,
    private readonly callerModel: string,
    private readonly rewriteModel: boolean,
    /** The caller's error envelope (the codec's), for the closing `error` frame. */
    private readonly errorBody: (err: GatewayError) => string,
    /** The driver's classification of a failure frame's data. */
    private readonly classify: (data: string) => GatewayError,
    /** Masks secrets in failure text bound for the caller (the upstream may quote a key). */
    private readonly mask: (text: string) => string = (text) => text,
  ) {}

  earlyError(frame: SseFrame): GatewayError | undefined {
    if (frame.event !== 'error') return undefined;
    return this.classify(frame.data);
  }

  frame(frame: SseFrame): string {
    const event = frame.event ?? 'message';
    return this.tap(event, textData(frame.data)) ?? sseFrame(event, frame.data);
  }

  tap(event: string, data: FrameData): string | undefined {
    switch (event) {
      case 'content_block_delta':
        if (this.rec.tFirstToken === 0) this.rec.tFirstToken = performance.now();
        return undefined;
      case 'message_start': {
        const text = data.text();
        const obj = safeParse(text) as { message?: { model?: string; usage?: never } } | undefined;
        if (!obj?.message) return undefined;
        this.rec.usage = mergeAnthropicUsage(undefined, obj.message.usage);
        if (!this.rewriteModel) return undefined;
        obj.message.model = this.callerModel;
        return sseFrame(event, spliceNestedModel(text, 'message', this.callerModel) ?? JSON.stringify(obj));
      }
      case 'message_delta': {
        const obj = safeParse(data.text()) as { delta?: { stop_reason?: string }; usage?: never } | undefined;
        if (obj) {
          this.rec.usage = mergeAnthropicUsage(this.rec.usage, obj.usage);
          if (obj.delta?.stop_reason) this.rec.finishReason = obj.delta.stop_reason;
        }
        return undefined;
      }
      case 'message_stop':
        this.finished = true;
        return undefined;
      case 'error': {
        const text = data.text();
        this.rec.errorKind = this.classify(text).kind;
        this.finished = true;
        const masked = this.mask(text);
        return masked === text ? undefined : sseFrame(event, masked);
      }
      default:
        return undefined;
    }
  }

  closingFrames(err: GatewayError): string {
    this.finished = true;
    return sseFrame('error', this.errorBody(maskedForCaller(err, this.mask)));
  }

  result(text: string, obj: Record<string, unknown>): string {
    this.rec.usage = mergeAnthropicUsage(undefined, obj.usage as never);
    this.rec.finishReason = typeof obj.stop_reason === 'string' ? obj.stop_reason : undefined;
    return this.rewriteModel ? answerWithModel(text, obj, this.callerModel) : text;
  }
}

function safeParse(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    return undefined;
  }
}
