// IR events → Chat Completions chunks (chat-completions.md §5): `data:` lines only, the role delta
// first, then content / refusal / reasoning_content deltas; each tool call on its own `index` with its
// id and name in its first delta and argument fragments after; the chunk with the finish reason; with
// `stream_options.include_usage`, a separate last chunk with `choices: []` and the usage; then
// `data: [DONE]`. A failure after the first byte is one `{"error":…}` data frame, then the stream
// closes. Every chunk shares one prefix (id, created, model), built once.
import { keepFlat } from '../../ir/keep-flat.js';
import type { IrEvent, ReasoningCarry, Usage } from '../../ir/types.js';
import { emptyUsage } from '../../ir/types.js';
import { streamErrorBodyJson } from '../openai-error.js';
import { sseComment, sseData } from '../sse.js';
import type { EncodeContext, StreamEncoder } from '../types.js';
import { finishReasonFor } from './map-finish.js';
import { chatUsageJson } from './map-usage.js';
import { reasoningDetail, type ReasoningDetail } from './reasoning-details.js';

export const KEEP_ALIVE = sseComment('keep-alive');
const DONE = 'data: [DONE]\n\n';

export function createStreamEncoder(ctx: EncodeContext, write: (frame: string) => void): StreamEncoder {
  return new ChatStreamEncoder(ctx, write);
}

class ChatStreamEncoder implements StreamEncoder {
  private started = false;
  private done = false;
  /** `data: {…,"choices":[{"index":0,"delta":` — every chunk's start. */
  private readonly head: string;
  /** What closes a chunk that has no finish reason. */
  private readonly tail: string;
  private usage: Usage | undefined;
  /** The tool-call index the next call gets, and the open call's. */
  private nextTool = 0;
  private tool = -1;
  private toolCustom = false;
  private toolSent = false;
  private refusalBlock = false;
  /** Text or a call went out: a reasoning unit after this point names the call it precedes. */
  private answerStarted = false;
  private reasoningText = '';
  private appends = 0;
  private details = 0;
  /** A reasoning unit waiting for the call it precedes (sent just before that call, or at the finish). */
  private pendingDetail: ReasoningDetail | undefined;

  constructor(
    private readonly ctx: EncodeContext,
    private readonly write: (frame: string) => void,
  ) {
    const withUsage = ctx.request.streamUsage === true;
    this.head =
      'data: {"id":' + JSON.stringify(ctx.responseId) +
      ',"object":"chat.completion.chunk","created":' + ctx.createdAt +
      ',"model":' + JSON.stringify(ctx.request.model) +
      ',"choices":[{"index":0,"delta":';
    this.tail = ',"logprobs":null,"finish_reason":null}]' + (withUsage ? ',"usage":null' : '') + '}\n\n';
  }

  get finished(): boolean {
    return this.done;
  }

  ping(): void {
    if (!this.done) this.write(KEEP_ALIVE);
  }

  event(ev: IrEvent): void {
    if (this.done) return;
    if (!this.started && ev.type !== 'error') {
      this.started = true;
      this.delta('{"role":"assistant","content":""}');
    }
    switch (ev.type) {
      case 'response-start':
        if (ev.usage) this.usage = ev.usage;
        return;
      case 'text-start':
        this.refusalBlock = ev.refusal === true;
        return;
      case 'text-delta':
        if (ev.text === '') return;
        this.answerStarted = true;
        this.delta((this.refusalBlock ? '{"refusal":' : '{"content":') + JSON.stringify(ev.text) + '}');
        return;
      case 'text-end':
        this.refusalBlock = false;
        return;
      case 'reasoning-start':
        this.reasoningText = '';
        this.appends = 0;
        return;
      case 'reasoning-delta':
        if (ev.text === '') return;
        this.reasoningText = keepFlat(this.reasoningText + ev.text, ++this.appends);
        this.delta('{"reasoning_content":' + JSON.stringify(ev.text) + '}');
        return;
      case 'reasoning-part-break':
        this.reasoningText += '\n\n';
        this.delta('{"reasoning_content":"\\n\\n"}');
        return;
      case 'reasoning-end':
        this.endReasoning(ev.carry);
        return;
      case 'tool-call-start': {
        this.answerStarted = true;
        this.tool = this.nextTool++;
        this.toolCustom = ev.kind === 'custom';
        this.toolSent = false;
        let first = '{"tool_calls":[{"index":' + this.tool + ',"id":' + JSON.stringify(ev.id);
        first += this.toolCustom
          ? ',"type":"custom","custom":{"name":' + JSON.stringify(ev.name) + ',"input":""}}]'
          : ',"type":"function","function":{"name":' + JSON.stringify(ev.name) + ',"arguments":""}}]';
        if (this.pendingDetail) {
          this.pendingDetail.tool_call_id = ev.id;
          first += ',"reasoning_details":[' + JSON.stringify(this.pendingDetail) + ']';
          this.pendingDetail = undefined;
        }
        this.delta(first + '}');
        return;
      }
      case 'tool-call-delta':
        if (this.tool < 0 || ev.argumentsDelta === '') return;
        this.toolSent = true;
        this.toolDelta(ev.argumentsDelta);
        return;
      case 'tool-call-end':
        if (this.tool >= 0 && !this.toolSent && ev.arguments) this.toolDelta(ev.arguments);
        return;
      case 'usage':
        this.usage = ev.usage;
        return;
      case 'finish': {
        if (this.pendingDetail) this.flushDetail();
        const reason = finishReasonFor(ev.finish.reason, this.nextTool > 0);
        this.write(this.head + '{}' + this.tail.replace('"finish_reason":null', '"finish_reason":"' + reason + '"'));
        if (this.ctx.request.streamUsage === true) {
          this.write(
            'data: {"id":' + JSON.stringify(this.ctx.responseId) +
              ',"object":"chat.completion.chunk","created":' + this.ctx.createdAt +
              ',"model":' + JSON.stringify(this.ctx.request.model) +
              ',"choices":[],"usage":' + chatUsageJson(this.usage ?? emptyUsage()) + '}\n\n',
          );
        }
        this.write(DONE);
        this.done = true;
        return;
      }
      case 'error':
        this.write(sseData(streamErrorBodyJson(ev.error.kind, ev.error.message)));
        this.done = true;
        return;
      default: {
        const never: never = ev;
        return never;
      }
    }
  }

  private delta(deltaJson: string): void {
    this.write(this.head + deltaJson + this.tail);
  }

  private toolDelta(fragment: string): void {
    const body = this.toolCustom ? '"custom":{"input":' + JSON.stringify(fragment) + '}' : '"function":{"arguments":' + JSON.stringify(fragment) + '}';
    this.delta('{"tool_calls":[{"index":' + this.tool + ',' + body + '}]}');
  }

  /** The unit's opaque state, once its block is over (the signature comes last): at once when it
   * opens the message, else held until the call it precedes names it. */
  private endReasoning(carry: ReasoningCarry | undefined): void {
    if (this.pendingDetail) this.flushDetail();
    const d = reasoningDetail(this.reasoningText, carry, this.details);
    this.reasoningText = '';
    if (d === undefined) return;
    this.details++;
    if (this.answerStarted) this.pendingDetail = d;
    else this.delta('{"reasoning_details":[' + JSON.stringify(d) + ']}');
  }

  private flushDetail(): void {
    this.delta('{"reasoning_details":[' + JSON.stringify(this.pendingDetail) + ']}');
    this.pendingDetail = undefined;
  }
}
