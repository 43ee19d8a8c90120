// IR events → Messages SSE (messages.md §12): message_start, then blocks 0,1,2… each start/deltas/stop,
// then message_delta and message_stop; or `error` and nothing after it. Block indexes are our own count
// because empty IR blocks emit nothing. Thinking is deferred to its first delta: a reasoning block
// with no text becomes a complete redacted_thinking block (or the native thinking block it carries).
import { estimateInputTokens } from '../../ir/estimate-tokens.js';
import type { IrEvent, ReasoningCarry, Usage } from '../../ir/types.js';
import { sseFrame } from '../sse.js';
import type { EncodeContext, StreamEncoder } from '../types.js';
import { errorBodyJson } from './encode-error.js';
import { stopReasonFor, stopSequenceFor } from './map-finish.js';
import { messagesUsageJson, startUsageEstimateJson } from './map-usage.js';
import { reasoningBlock, streamedSignature } from './reasoning-block.js';
import { keepFlat } from '../../ir/keep-flat.js';

const enum Open {
  None,
  Text,
  Thinking,
  Tool,
}

export const PING = sseFrame('ping', '{"type":"ping"}');
const MESSAGE_STOP = sseFrame('message_stop', '{"type":"message_stop"}');

export function createStreamEncoder(ctx: EncodeContext, write: (frame: string) => void): StreamEncoder {
  return new MessagesStreamEncoder(ctx, write);
}

class MessagesStreamEncoder implements StreamEncoder {
  private started = false;
  private done = false;
  /** Index the next client block gets. */
  private nextIndex = 0;
  /** The client block currently open, and its index. */
  private open = Open.None;
  private index = -1;
  /** An IR reasoning block has started and not ended (its client block may not be open yet). */
  private reasoningPending = false;
  /** Text streamed for the current reasoning block (the chat envelope needs it when no carry comes). */
  private reasoningText = '';
  /** Deltas appended to `reasoningText` so far (keepFlat). */
  private appends = 0;
  private toolCustom = false;
  /** Some input_json_delta went out for the open tool block. */
  private toolSent = false;
  private usage: Usage | undefined;

  constructor(
    private readonly ctx: EncodeContext,
    private readonly write: (frame: string) => void,
  ) {}

  get finished(): boolean {
    return this.done;
  }

  ping(): void {
    if (this.started && !this.done) this.write(PING);
  }

  event(ev: IrEvent): void {
    if (this.done) return;
    if (!this.started && ev.type !== 'response-start' && ev.type !== 'error') this.start(undefined);
    switch (ev.type) {
      case 'response-start':
        if (!this.started) this.start(ev.usage);
        return;
      case 'text-start':
        this.closeOpen();
        return;
      case 'text-delta':
        if (ev.text === '') return;
        if (this.open !== Open.Text) {
          this.closeOpen();
          this.openBlock(Open.Text, '{"type":"text","text":""}');
        }
        this.delta('{"type":"text_delta","text":' + JSON.stringify(ev.text) + '}');
        return;
      case 'text-end':
        if (this.open === Open.Text) this.stopBlock();
        return;
      case 'reasoning-start':
        this.closeOpen();
        this.reasoningPending = true;
        return;
      case 'reasoning-delta':
        if (ev.text === '') return;
        if (this.open !== Open.Thinking) {
          // A delta without its reasoning-start still gets a block of its own.
          if (!this.reasoningPending) {
            this.closeOpen();
            this.reasoningPending = true;
          }
          this.openBlock(Open.Thinking, '{"type":"thinking","thinking":"","signature":""}');
        }
        this.reasoningText = keepFlat(this.reasoningText + ev.text, ++this.appends);
        this.delta('{"type":"thinking_delta","thinking":' + JSON.stringify(ev.text) + '}');
        return;
      case 'reasoning-part-break':
        if (this.open === Open.Thinking) {
          this.reasoningText += '\n\n';
          this.delta('{"type":"thinking_delta","thinking":"\\n\\n"}');
        }
        return;
      case 'reasoning-end':
        if (this.reasoningPending || this.open === Open.Thinking) this.finishReasoning(ev.carry);
        return;
      case 'tool-call-start':
        this.closeOpen();
        this.toolCustom = ev.kind === 'custom';
        this.toolSent = false;
        this.openBlock(
          Open.Tool,
          '{"type":"tool_use","id":' + JSON.stringify(ev.id) + ',"name":' + JSON.stringify(ev.name) + ',"input":{}}',
        );
        return;
      case 'tool-call-delta': {
        if (this.open !== Open.Tool || ev.argumentsDelta === '') return;
        // A custom (free-text) tool's input is wrapped as {"input": "<text>"}, escaped piece by piece.
        const partial = this.toolCustom
          ? (this.toolSent ? '' : '{"input":"') + JSON.stringify(ev.argumentsDelta).slice(1, -1)
          : ev.argumentsDelta;
        this.toolSent = true;
        this.inputDelta(partial);
        return;
      }
      case 'tool-call-end':
        if (this.open === Open.Tool) this.finishTool(ev.arguments);
        return;
      case 'usage':
        this.usage = ev.usage;
        return;
      case 'finish':
        this.closeOpen();
        this.write(
          sseFrame(
            'message_delta',
            '{"type":"message_delta","delta":{"stop_reason":"' +
              stopReasonFor(ev.finish.reason) +
              '","stop_sequence":' +
              JSON.stringify(stopSequenceFor(ev.finish)) +
              '},"usage":' +
              messagesUsageJson(this.usage) +
              '}',
          ),
        );
        this.write(MESSAGE_STOP);
        this.done = true;
        return;
      case 'error':
        this.write(sseFrame('error', errorBodyJson(ev.error.kind, ev.error.message)));
        this.done = true;
        return;
      default: {
        const never: never = ev;
        return never;
      }
    }
  }

  private start(usage: Usage | undefined): void {
    this.started = true;
    if (usage) this.usage = usage;
    this.write(
      sseFrame(
        'message_start',
        '{"type":"message_start","message":{"id":' +
          JSON.stringify(this.ctx.responseId) +
          ',"type":"message","role":"assistant","model":' +
          JSON.stringify(this.ctx.request.model) +
          ',"content":[],"stop_reason":null,"stop_sequence":null,"usage":' +
          // OpenAI upstreams report usage only at the end: until then the gateway's own count of the
          // request (mapping.md §15.53); message_delta carries the exact figures.
          (usage ? messagesUsageJson(usage) : startUsageEstimateJson(estimateInputTokens(this.ctx.request))) +
          '}}',
      ),
    );
  }

  private openBlock(kind: Open, contentBlockJson: string): void {
    this.open = kind;
    this.index = this.nextIndex++;
    this.write(
      sseFrame(
        'content_block_start',
        '{"type":"content_block_start","index":' + this.index + ',"content_block":' + contentBlockJson + '}',
      ),
    );
  }

  private delta(deltaJson: string): void {
    this.write(
      sseFrame('content_block_delta', '{"type":"content_block_delta","index":' + this.index + ',"delta":' + deltaJson + '}'),
    );
  }

  private inputDelta(partial: string): void {
    this.delta('{"type":"input_json_delta","partial_json":' + JSON.stringify(partial) + '}');
  }

  private stopBlock(): void {
    this.write(sseFrame('content_block_stop', '{"type":"content_block_stop","index":' + this.index + '}'));
    this.open = Open.None;
  }

  /** Ends whatever is open or pending, as its own end event would (used when the IR skipped one). */
  private closeOpen(): void {
    if (this.reasoningPending || this.open === Open.Thinking) this.finishReasoning(undefined);
    else this.closeBlockOnly();
  }

  private closeBlockOnly(): void {
    if (this.open === Open.Tool) this.finishTool(undefined);
    else if (this.open !== Open.None) this.stopBlock();
  }

  private finishReasoning(carry: ReasoningCarry | undefined): void {
    if (this.open === Open.Thinking) {
      this.delta('{"type":"signature_delta","signature":' + JSON.stringify(streamedSignature(this.reasoningText, carry)) + '}');
      this.stopBlock();
    } else {
      const block = reasoningBlock('', carry);
      if (block?.type === 'thinking') {
        this.openBlock(Open.Thinking, '{"type":"thinking","thinking":"","signature":""}');
        if (block.thinking !== '') this.delta('{"type":"thinking_delta","thinking":' + JSON.stringify(block.thinking) + '}');
        this.delta('{"type":"signature_delta","signature":' + JSON.stringify(block.signature) + '}');
        this.stopBlock();
      } else if (block) {
        this.openBlock(Open.Thinking, '{"type":"redacted_thinking","data":' + JSON.stringify(block.data) + '}');
        this.stopBlock();
      }
    }
    this.reasoningPending = false;
    this.reasoningText = '';
  }

  private finishTool(args: string | undefined): void {
    if (this.toolCustom) this.inputDelta(this.toolSent ? '"}' : '{"input":' + JSON.stringify(args ?? '') + '}');
    else if (!this.toolSent && args) this.inputDelta(args);
    this.stopBlock();
  }
}
