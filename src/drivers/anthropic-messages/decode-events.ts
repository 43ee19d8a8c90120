// Anthropic Messages stream → IR events (messages.md §12, mapping.md §13.1). One JSON.parse per frame;
// upstream blocks arrive strictly one after another, so only the open block's state is kept.
// Server-tool, result and unknown blocks produce no IR block at all, and IR block numbers stay
// contiguous. Thinking blocks end with their exact native form as the carry (the signature arrives
// last, just before content_block_stop).
import { toCallerId } from '../../ir/tool-ids.js';
import { ToolLookup } from '../../ir/tool-names.js';
import { emptyUsage, type IrEvent, type IrRequest } from '../../ir/types.js';
import type { UpstreamStreamEventWire } from '../../protocols/anthropic-messages/upstream-events.js';
import type { UpstreamMessageWire } from '../../protocols/anthropic-messages/upstream-response.js';
import type { SseFrame } from '../sse-parser.js';
import { parseStreamFrame } from '../stream-frame.js';
import type { EventDecoder } from '../types.js';
import { streamErrorOf } from './error-kind.js';
import { mapStopReason } from './map-finish.js';
import { mergeUsage } from './map-usage.js';
import { ANTHROPIC_TOOL_NAME_MAX, customInputFromJson } from './tool-lookup.js';
import { keepFlat } from '../../ir/keep-flat.js';

// The open upstream block's kind (numbers, compared on every delta).
const NONE = 0;
const TEXT = 1;
const THINKING = 2;
const REDACTED = 3;
const TOOL = 4;
/** A block with no IR counterpart (server tools, their results, future types): its frames are ignored. */
const SKIP = 5;

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

export class MessagesEventDecoder implements EventDecoder {
  private readonly tools: ToolLookup;
  private started = false;
  private done = false;
  private responseId = '';
  private nextBlock = 0;
  private open = NONE;
  /** The upstream `index` of the open block, and its IR block number. */
  private openIndex = -1;
  private block = -1;
  private thinking = '';
  /** Deltas appended to `thinking` so far (keepFlat). */
  private appends = 0;
  private signature = '';
  private redactedData = '';
  private args = '';
  /** Input a tool_use start already carried in full (compatible servers that send no deltas). */
  private seedArgs = '';
  private custom = false;
  private usage = emptyUsage();
  private stopReason: string | null = null;
  private stopSequence: string | null = null;

  constructor(
    req: IrRequest,
    private readonly emit: (ev: IrEvent) => void,
  ) {
    this.tools = new ToolLookup(req.tools, ANTHROPIC_TOOL_NAME_MAX);
  }

  frame(frame: SseFrame): void {
    if (this.done) return;
    const ev = parseStreamFrame<UpstreamStreamEventWire>(frame.data);
    if (typeof ev === 'string') {
      this.fail('api_error', ev);
      return;
    }
    // Most frequent first.
    switch (ev.type ?? frame.event) {
      case 'content_block_delta':
        this.delta(ev);
        return;
      case 'content_block_start':
        this.blockStart(ev);
        return;
      case 'content_block_stop':
        if (ev.index === undefined || ev.index === this.openIndex) this.closeBlock();
        return;
      case 'message_start':
        this.messageStart(ev.message);
        return;
      case 'message_delta':
        this.messageDelta(ev);
        return;
      case 'message_stop':
        this.complete();
        return;
      case 'error':
        this.upstreamError(ev);
        return;
      default:
        // ping, and event types newer than this decoder
        return;
    }
  }

  end(): void {
    if (this.done) return;
    // Never synthesize success from a cut stream (mapping.md §15.14).
    this.fail('api_error', 'upstream stream ended before message_stop');
  }

  private messageStart(message: UpstreamMessageWire | null | undefined): void {
    if (this.started) return;
    const m = message && typeof message === 'object' ? message : undefined;
    if (m?.usage && typeof m.usage === 'object') this.usage = mergeUsage(this.usage, m.usage);
    this.started = true;
    this.responseId = str(m?.id);
    this.emit({ type: 'response-start', id: this.responseId, model: str(m?.model), usage: this.usage });
  }

  /** Content before message_start (never from Anthropic itself): start without usage. */
  private ensureStarted(): void {
    if (this.started) return;
    this.started = true;
    this.emit({ type: 'response-start', id: '', model: '' });
  }

  private blockStart(ev: UpstreamStreamEventWire): void {
    this.ensureStarted();
    // A start without the previous block's stop: close it rather than interleave IR blocks.
    if (this.open !== NONE) this.closeBlock();
    this.openIndex = typeof ev.index === 'number' ? ev.index : -1;
    const b = ev.content_block;
    if (!b || typeof b !== 'object') {
      this.open = SKIP;
      return;
    }
    switch (b.type) {
      case 'text': {
        this.open = TEXT;
        const block = (this.block = this.nextBlock++);
        this.emit({ type: 'text-start', block });
        const text = str(b.text);
        if (text !== '') this.emit({ type: 'text-delta', block, text });
        return;
      }
      case 'thinking': {
        this.open = THINKING;
        const block = (this.block = this.nextBlock++);
        this.thinking = str(b.thinking);
        this.signature = str(b.signature);
        this.emit({ type: 'reasoning-start', block });
        if (this.thinking !== '') this.emit({ type: 'reasoning-delta', block, text: this.thinking });
        return;
      }
      case 'redacted_thinking':
        this.open = REDACTED;
        this.block = this.nextBlock++;
        this.redactedData = str(b.data);
        this.emit({ type: 'reasoning-start', block: this.block });
        return;
      case 'tool_use': {
        this.open = TOOL;
        const block = (this.block = this.nextBlock++);
        const tool = this.tools.resolve(str(b.name));
        this.custom = tool.kind === 'custom';
        this.args = '';
        const input = b.input;
        this.seedArgs = input && typeof input === 'object' && Object.keys(input).length > 0 ? JSON.stringify(input) : '';
        const upstreamId = str(b.id) || `call_${this.responseId}_${block}`;
        const id = toCallerId(upstreamId);
        this.emit(
          tool.namespace === undefined
            ? { type: 'tool-call-start', block, id, name: tool.name, kind: tool.kind }
            : { type: 'tool-call-start', block, id, name: tool.name, kind: tool.kind, namespace: tool.namespace },
        );
        return;
      }
      default:
        this.open = SKIP;
        return;
    }
  }

  private delta(ev: UpstreamStreamEventWire): void {
    const d = ev.delta;
    if (!d || (ev.index !== undefined && ev.index !== this.openIndex)) return;
    switch (this.open) {
      case TEXT:
        if (d.type === 'text_delta') {
          const text = d.text;
          if (typeof text === 'string' && text !== '') this.emit({ type: 'text-delta', block: this.block, text });
        }
        // citations_delta: citations are not translated across families (mapping.md §3).
        return;
      case THINKING:
        if (d.type === 'thinking_delta') {
          const text = d.thinking;
          if (typeof text === 'string' && text !== '') {
            this.thinking = keepFlat(this.thinking + text, ++this.appends);
            this.emit({ type: 'reasoning-delta', block: this.block, text });
          }
        } else if (d.type === 'signature_delta') {
          // Replace, never append: the signature is one value sent once.
          this.signature = str(d.signature);
        }
        return;
      case TOOL:
        if (d.type === 'input_json_delta') {
          const json = d.partial_json;
          if (typeof json === 'string' && json !== '') {
            this.args += json;
            // A custom tool's input is unwrapped from its JSON at the end, so nothing streams early.
            if (!this.custom) this.emit({ type: 'tool-call-delta', block: this.block, argumentsDelta: json });
          }
        }
        return;
      default:
        return;
    }
  }

  private closeBlock(): void {
    const block = this.block;
    switch (this.open) {
      case TEXT:
        this.emit({ type: 'text-end', block });
        break;
      case THINKING:
        this.emit({
          type: 'reasoning-end',
          block,
          carry: { family: 'anthropic', block: { type: 'thinking', thinking: this.thinking, signature: this.signature } },
        });
        this.thinking = '';
        this.signature = '';
        break;
      case REDACTED:
        this.emit({ type: 'reasoning-end', block, carry: { family: 'anthropic', block: { type: 'redacted_thinking', data: this.redactedData } } });
        this.redactedData = '';
        break;
      case TOOL: {
        const streamed = this.args !== '';
        const json = streamed ? this.args : this.seedArgs;
        if (this.custom) {
          const input = customInputFromJson(json);
          if (input !== '') this.emit({ type: 'tool-call-delta', block, argumentsDelta: input });
          this.emit({ type: 'tool-call-end', block, arguments: input });
        } else {
          if (!streamed && json !== '') this.emit({ type: 'tool-call-delta', block, argumentsDelta: json });
          // No input deltas at all means an empty input object (messages.md §12).
          this.emit({ type: 'tool-call-end', block, arguments: json === '' ? '{}' : json });
        }
        this.args = '';
        this.seedArgs = '';
        break;
      }
      default:
        break;
    }
    this.open = NONE;
    this.openIndex = -1;
  }

  private messageDelta(ev: UpstreamStreamEventWire): void {
    const d = ev.delta;
    if (d && typeof d === 'object') {
      if (typeof d.stop_reason === 'string') this.stopReason = d.stop_reason;
      if (typeof d.stop_sequence === 'string') this.stopSequence = d.stop_sequence;
    }
    const usage = ev.usage;
    if (usage && typeof usage === 'object') this.usage = mergeUsage(this.usage, usage);
  }

  private complete(): void {
    this.ensureStarted();
    if (this.open !== NONE) this.closeBlock();
    this.done = true;
    this.emit({ type: 'usage', usage: this.usage });
    this.emit({ type: 'finish', finish: mapStopReason(this.stopReason, this.stopSequence) });
  }

  private upstreamError(ev: UpstreamStreamEventWire): void {
    const { kind, message } = streamErrorOf(ev);
    this.fail(kind, message);
  }

  private fail(kind: string, message: string): void {
    this.done = true;
    this.emit({ type: 'error', error: { kind, message } });
  }
}

export function createMessagesEventDecoder(req: IrRequest, emit: (ev: IrEvent) => void): EventDecoder {
  return new MessagesEventDecoder(req, emit);
}
