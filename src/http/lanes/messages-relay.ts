// Pass-through relay for Anthropic Messages streams: frames are re-emitted as they arrive, untouched
// except `message.model` in message_start (the caller's name is echoed). A tap reads usage, the stop
// reason and errors from the few frames that carry them; other frames are never JSON-parsed.
import { sseFrame } from '../../codecs/sse.js';
import type { SseFrame } from '../../drivers/sse-parser.js';
import { GatewayError } from '../../errors.js';
import type { RequestRecord } from '../../observability/request-record.js';
import { mergeAnthropicUsage } from './usage-taps.js';

export interface Relay {
  /** Returns the frame text to write. */
  frame(frame: SseFrame): string;
  /** The frame is an error before anything was relayed: the lane turns it into a real status. */
  earlyError(frame: SseFrame): GatewayError | undefined;
  /** True once the protocol's terminal frame went through. */
  readonly finished: boolean;
  /** The frames that close a stream cut short (error event; Responses: error + response.failed). */
  closingFrames(err: GatewayError): string;
}

export class MessagesRelay implements Relay {
  finished = false;

  constructor(
    private readonly rec: RequestRecord,
    private readonly callerModel: string,
    private readonly rewriteModel: boolean,
    private readonly errorBody: (err: GatewayError) => string,
  ) {}

  earlyError(frame: SseFrame): GatewayError | undefined {
    if (frame.event !== 'error') return undefined;
    return errorFromFrame(frame.data);
  }

  frame(frame: SseFrame): string {
    const event = frame.event ?? 'message';
    let data = frame.data;
    switch (event) {
      case 'content_block_delta':
        if (this.rec.tFirstToken === 0) this.rec.tFirstToken = performance.now();
        break;
      case 'message_start': {
        const obj = safeParse(data) as { message?: { model?: string; usage?: never } } | undefined;
        if (obj?.message) {
          this.rec.usage = mergeAnthropicUsage(undefined, obj.message.usage);
          if (this.rewriteModel) {
            obj.message.model = this.callerModel;
            data = JSON.stringify(obj);
          }
        }
        break;
      }
      case 'message_delta': {
        const obj = safeParse(data) as { delta?: { stop_reason?: string }; usage?: never } | undefined;
        if (obj) {
          this.rec.usage = mergeAnthropicUsage(this.rec.usage, obj.usage);
          if (obj.delta?.stop_reason) this.rec.finishReason = obj.delta.stop_reason;
        }
        break;
      }
      case 'message_stop':
        this.finished = true;
        break;
      case 'error':
        this.rec.errorKind = errorFromFrame(data).kind;
        this.finished = true;
        break;
      default:
        break;
    }
    return sseFrame(event, data);
  }

  closingFrames(err: GatewayError): string {
    this.finished = true;
    return sseFrame('error', this.errorBody(err));
  }
}

function safeParse(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    return undefined;
  }
}

const ANTHROPIC_TYPES: Record<string, GatewayError['kind']> = {
  invalid_request_error: 'invalid_request',
  authentication_error: 'bad_gateway',
  permission_error: 'bad_gateway',
  billing_error: 'billing',
  not_found_error: 'not_found',
  request_too_large: 'request_too_large',
  rate_limit_error: 'rate_limit',
  api_error: 'api_error',
  overloaded_error: 'overloaded',
  timeout_error: 'timeout',
};

export function errorFromFrame(data: string): GatewayError {
  const obj = safeParse(data) as { error?: { type?: string; message?: string } } | undefined;
  const type = obj?.error?.type ?? 'api_error';
  const message = obj?.error?.message ?? 'upstream error';
  const kind = /prompt is too long/i.test(message) ? 'context_overflow' : (ANTHROPIC_TYPES[type] ?? 'api_error');
  return new GatewayError(kind, message);
}
