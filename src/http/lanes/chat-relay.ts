// Pass-through relay for Chat Completions streams: `data:` chunks relayed as they arrive (vLLM's,
// DeepSeek's and OpenRouter's extra fields survive), with every chunk's `model` put back to the
// caller's name when the deployment's differs (each chunk carries one). A tap reads usage, the finish
// reason and errors from the few chunks that carry them, found by their key before any parse. The
// gateway always asks a streamed upstream for its usage chunk (drivers/openai-chat/passthrough-request.ts);
// it is dropped here when the caller did not ask for it. The stream ends with one `data: [DONE]`.
import { maskedForCaller } from '../caller-safe-error.js';
import { sseData } from '../../codecs/sse.js';
import type { SseFrame } from '../../drivers/sse-parser.js';
import { textData, type FrameData } from '../../drivers/sse-splitter.js';
import type { GatewayError } from '../../errors.js';
import type { RequestRecord } from '../../observability/request-record.js';
import { answerWithModel, spliceModel } from './answer-model.js';
import type { Relay } from './relay.js';
import { chatUsage } from './usage-taps.js';

const DONE = 'data: [DONE]\n\n';

interface ChunkView {
  choices?: { finish_reason?: string | null }[] | null;
  usage?: never;
  error?: unknown;
  model?: unknown;
}

export class ChatRelay implements Relay {
  finished = false;
  readonly dataOnlyFrames = true;

  constructor(
    private readonly rec: RequestRecord,
    private readonly callerModel: string,
    private readonly rewriteModel: boolean,
    /** The caller asked for the usage chunk (`stream_options.include_usage`). */
    private readonly callerWantsUsage: boolean,
    /** The caller's error envelope (the codec's), for the closing error frame. */
    private readonly errorBody: (err: GatewayError) => string,
    /** The driver's classification of a failure chunk's data. */
    private readonly classify: (data: string) => GatewayError,
    /** Masks secrets in failure text bound for the caller (the upstream may quote a key). */
    private readonly mask: (text: string) => string = (text) => text,
  ) {}

  earlyError(frame: SseFrame): GatewayError | undefined {
    if (frame.data.indexOf('"error"') === -1) return undefined;
    const obj = safeParse(frame.data) as ChunkView | undefined;
    return obj?.error != null ? this.classify(frame.data) : undefined;
  }

  frame(frame: SseFrame): string {
    return this.tap('message', textData(frame.data)) ?? sseData(frame.data);
  }

  tap(_event: string, data: FrameData): string | undefined {
    const text = data.text();
    if (this.rec.tFirstToken === 0 && hasOutput(text)) this.rec.tFirstToken = performance.now();
    let obj: ChunkView | undefined;
    if (text.indexOf('"usage":{') !== -1 || text.indexOf('"finish_reason":"') !== -1 || text.indexOf('"error"') !== -1) {
      obj = safeParse(text) as ChunkView | undefined;
      if (obj?.error != null) {
        this.rec.errorKind = this.classify(text).kind;
        this.finished = true;
        const masked = this.mask(text);
        return masked === text ? undefined : sseData(masked);
      }
      if (obj?.usage) this.rec.usage = chatUsage(obj.usage);
      const reason = obj?.choices?.[0]?.finish_reason;
      if (typeof reason === 'string') {
        this.rec.finishReason = reason;
        // Complete from here: a connection closed without `[DONE]` is still a whole answer (§8.9).
        this.finished = true;
      }
      if (!this.callerWantsUsage && obj?.usage && Array.isArray(obj.choices) && obj.choices.length === 0) return '';
    }
    if (!this.rewriteModel) return undefined;
    const spliced = spliceModel(text, this.callerModel);
    if (spliced !== undefined) return sseData(spliced);
    obj ??= safeParse(text) as ChunkView | undefined;
    if (!obj) return undefined;
    obj.model = this.callerModel;
    return sseData(JSON.stringify(obj));
  }

  endFrames(): string {
    return DONE;
  }

  closingFrames(err: GatewayError): string {
    this.finished = true;
    return sseData(this.errorBody(maskedForCaller(err, this.mask)));
  }

  result(text: string, obj: Record<string, unknown>): string {
    const view = obj as ChunkView;
    this.rec.usage = view.usage ? chatUsage(view.usage) : undefined;
    const reason = view.choices?.[0]?.finish_reason;
    this.rec.finishReason = typeof reason === 'string' ? reason : undefined;
    return this.rewriteModel ? answerWithModel(text, obj, this.callerModel) : text;
  }
}

/** A chunk that carries generated output (not the role chunk, not a bare finish or usage chunk). */
function hasOutput(text: string): boolean {
  return /"(?:content|reasoning_content|reasoning)":"[^"]|"tool_calls":\[/.test(text);
}

function safeParse(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    return undefined;
  }
}
