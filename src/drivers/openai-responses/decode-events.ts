// Responses stream → IR events (responses.md §9; mapping.md §13.3). One JSON.parse per frame, dispatch
// on the parsed `type` (the `event:` line is informational). Items arrive one after another, so the
// decoder tracks a single open block and the output_index of the item it belongs to.
//
// Lenient toward compatible servers: text deltas without content_part events open their block, an
// output_item.done without its .added emits the whole item, and a terminal response whose items never
// streamed is replayed from its `output` (which is also how decode-result.ts reads a JSON body).
import { toCallerId } from '../../ir/tool-ids.js';
import type { IrEvent, IrRequest, ReasoningCarry, ToolKind } from '../../ir/types.js';
import type { StreamEventWire } from '../../protocols/openai-responses/upstream-events.js';
import type { ContentPartWire, OutputItemWire, ResponseWire } from '../../protocols/openai-responses/upstream-response.js';
import type { SseFrame } from '../sse-parser.js';
import { parseStreamFrame } from '../stream-frame.js';
import type { EventDecoder } from '../types.js';
import { errorEventError, failedResponseError } from './error-kind.js';
import { finishForCompleted, finishForIncomplete } from './map-finish.js';
import { mapResponsesUsage } from './map-usage.js';
import { ToolNameMap } from './tool-names.js';

// What block is open (numbers rather than strings: compared on every delta).
const NONE = 0;
const TEXT = 1;
const REASONING = 2;
const TOOL = 3;

// Which reasoning stream feeds the open reasoning block: the first kind of delta seen wins, so a
// server sending both summary and raw reasoning text does not duplicate it.
const FROM_NOTHING = 0;
const FROM_SUMMARY = 1;
const FROM_TEXT = 2;

export class ResponsesEventDecoder implements EventDecoder {
  private readonly names: ToolNameMap;
  private started = false;
  private done = false;
  private responseId = '';
  private nextBlock = 0;
  private open = NONE;
  private openBlock = -1;
  /** output_index of the item the open block belongs to. */
  private openIndex = -1;
  /** Whether the open block has carried any delta (else its end repeats the item's full content). */
  private openHasDelta = false;
  /** output_index of the latest item seen, and how many blocks it produced. */
  private itemIndex = -1;
  private itemBlocks = 0;
  private reasoningFrom = FROM_NOTHING;
  private summaryIndex = 0;
  /** function_call_arguments.done / custom_tool_call_input.done of the open call. */
  private argsDone: string | undefined;
  private toolCalls = 0;
  private refusal = false;
  private callIds: Set<string> | undefined;

  constructor(
    req: IrRequest,
    private readonly emit: (ev: IrEvent) => void,
  ) {
    this.names = new ToolNameMap(req.tools);
  }

  frame(frame: SseFrame): void {
    if (this.done) return;
    const data = frame.data;
    // OpenAI sends no [DONE]; some compatible servers do, after the terminal event.
    if (data === '[DONE]') return;
    const ev = parseStreamFrame<StreamEventWire>(data);
    if (typeof ev === 'string') {
      this.fail('api_error', ev);
      return;
    }
    switch (ev.type) {
      case 'response.created':
      case 'response.in_progress':
      case 'response.queued':
        if (!this.started) this.start(ev.response);
        return;
      case 'response.output_item.added':
        if (ev.item) this.itemAdded(ev.item, indexOf(ev));
        return;
      case 'response.output_item.done':
        if (ev.item) this.itemDone(ev.item, indexOf(ev));
        return;
      case 'response.content_part.added':
        this.partAdded(ev.part, indexOf(ev));
        return;
      case 'response.content_part.done':
        this.partDone(ev.part, indexOf(ev));
        return;
      case 'response.output_text.delta':
        this.textDelta(ev.delta, indexOf(ev), false);
        return;
      case 'response.refusal.delta':
        this.textDelta(ev.delta, indexOf(ev), true);
        return;
      case 'response.reasoning_summary_text.delta':
        this.reasoningDelta(ev.delta, indexOf(ev), FROM_SUMMARY, typeof ev.summary_index === 'number' ? ev.summary_index : 0);
        return;
      case 'response.reasoning_text.delta':
        this.reasoningDelta(ev.delta, indexOf(ev), FROM_TEXT, 0);
        return;
      case 'response.function_call_arguments.delta':
      case 'response.custom_tool_call_input.delta':
        this.toolDelta(ev.delta, indexOf(ev));
        return;
      case 'response.function_call_arguments.done':
        if (this.open === TOOL && typeof ev.arguments === 'string') this.argsDone = ev.arguments;
        return;
      case 'response.custom_tool_call_input.done':
        if (this.open === TOOL && typeof ev.input === 'string') this.argsDone = ev.input;
        return;
      case 'response.completed':
        this.terminal(ev.response, true);
        return;
      case 'response.incomplete':
        this.terminal(ev.response, false);
        return;
      case 'response.failed':
        this.failed(ev.response);
        return;
      case 'error':
        this.errorEvent(ev);
        return;
      default:
        // An untyped frame is an error when it carries `error` (the SDKs treat it so) or came as `event: error`.
        if (ev.type === undefined && (ev.error || frame.event === 'error')) this.errorEvent(ev);
        // Everything else (built-in tool progress, annotations, *.done echoes, keepalive): no IR.
        return;
    }
  }

  end(): void {
    if (this.done) return;
    this.fail('api_error', 'upstream stream ended before response.completed');
  }

  /** A whole response object (non-streamed body) as events: start, its items, usage, finish. */
  replay(response: ResponseWire, completed: boolean): void {
    this.start(response);
    this.terminal(response, completed);
  }

  private start(response: ResponseWire | null | undefined): void {
    this.started = true;
    const id = response?.id;
    const model = response?.model;
    this.responseId = typeof id === 'string' ? id : '';
    this.emit({ type: 'response-start', id: this.responseId, model: typeof model === 'string' ? model : '' });
  }

  private ensureStarted(): void {
    if (!this.started) this.start(undefined);
  }

  // ---- items -------------------------------------------------------------------------------------

  private itemAdded(item: OutputItemWire, index: number): void {
    this.ensureStarted();
    switch (item.type) {
      case 'message':
        this.closeOpen();
        this.newItem(index);
        return;
      case 'reasoning':
        this.closeOpen();
        this.newItem(index);
        this.openReasoning(index);
        return;
      case 'function_call':
        this.closeOpen();
        this.newItem(index);
        this.startCall(item, index, 'function', item.arguments);
        return;
      case 'custom_tool_call':
        this.closeOpen();
        this.newItem(index);
        this.startCall(item, index, 'custom', item.input);
        return;
      default:
        // Built-in tool items have no IR block.
        return;
    }
  }

  private itemDone(item: OutputItemWire, index: number): void {
    this.ensureStarted();
    const seen = index === this.itemIndex;
    switch (item.type) {
      case 'message':
        if (this.open === TEXT && this.openIndex === index) this.closeOpen();
        // A message whose parts never streamed: emit them whole.
        if (!seen || this.itemBlocks === 0) {
          if (!seen) this.newItem(index);
          const content = item.content;
          if (Array.isArray(content)) for (const part of content) this.wholePart(part, index);
        }
        return;
      case 'reasoning':
        if (this.open !== REASONING || this.openIndex !== index) {
          this.closeOpen();
          this.newItem(index);
          this.openReasoning(index);
        }
        if (!this.openHasDelta) this.reasoningFromItem(item);
        this.emit({ type: 'reasoning-end', block: this.openBlock, carry: carryOf(item) });
        this.open = NONE;
        return;
      case 'function_call':
      case 'custom_tool_call': {
        const custom = item.type === 'custom_tool_call';
        const full = custom ? item.input : item.arguments;
        if (this.open !== TOOL || this.openIndex !== index) {
          this.closeOpen();
          this.newItem(index);
          this.startCall(item, index, custom ? 'custom' : 'function', full);
        }
        this.endCall(typeof full === 'string' ? full : this.argsDone);
        return;
      }
      default:
        return;
    }
  }

  private newItem(index: number): void {
    this.itemIndex = index;
    this.itemBlocks = 0;
  }

  // ---- text --------------------------------------------------------------------------------------

  private partAdded(part: ContentPartWire | null | undefined, index: number): void {
    if (!part) return;
    // reasoning_text parts belong to reasoning items, whose deltas carry the text.
    if (part.type === 'output_text') this.openText(index, false);
    else if (part.type === 'refusal') this.openText(index, true);
  }

  private partDone(part: ContentPartWire | null | undefined, index: number): void {
    if (this.open !== TEXT || this.openIndex !== index) return;
    if (!this.openHasDelta && part) {
      const text = part.type === 'refusal' ? part.refusal : part.text;
      if (typeof text === 'string' && text !== '') this.emit({ type: 'text-delta', block: this.openBlock, text });
    }
    this.emit({ type: 'text-end', block: this.openBlock });
    this.open = NONE;
  }

  private textDelta(delta: string | undefined, index: number, refusal: boolean): void {
    if (typeof delta !== 'string' || delta === '') return;
    // Sloppy servers stream text without content_part events: open the block on the first delta.
    if (this.open !== TEXT || this.openIndex !== index) this.openText(index, refusal);
    this.openHasDelta = true;
    this.emit({ type: 'text-delta', block: this.openBlock, text: delta });
  }

  private openText(index: number, refusal: boolean): void {
    this.ensureStarted();
    this.closeOpen();
    if (index !== this.itemIndex) this.newItem(index);
    this.openBlockOf(TEXT, index);
    if (refusal) {
      this.refusal = true;
      this.emit({ type: 'text-start', block: this.openBlock, refusal: true });
    } else {
      this.emit({ type: 'text-start', block: this.openBlock });
    }
  }

  /** A content part of a message that never streamed. */
  private wholePart(part: ContentPartWire, index: number): void {
    const refusal = part.type === 'refusal';
    if (!refusal && part.type !== 'output_text') return;
    const text = refusal ? part.refusal : part.text;
    this.openText(index, refusal);
    if (typeof text === 'string' && text !== '') this.emit({ type: 'text-delta', block: this.openBlock, text });
    this.emit({ type: 'text-end', block: this.openBlock });
    this.open = NONE;
  }

  // ---- reasoning ---------------------------------------------------------------------------------

  private openReasoning(index: number): void {
    this.openBlockOf(REASONING, index);
    this.reasoningFrom = FROM_NOTHING;
    this.summaryIndex = 0;
    this.emit({ type: 'reasoning-start', block: this.openBlock });
  }

  private reasoningDelta(delta: string | undefined, index: number, from: number, summaryIndex: number): void {
    if (typeof delta !== 'string' || delta === '') return;
    if (this.open !== REASONING || this.openIndex !== index) {
      this.ensureStarted();
      this.closeOpen();
      this.newItem(index);
      this.openReasoning(index);
    }
    if (this.reasoningFrom === FROM_NOTHING) this.reasoningFrom = from;
    else if (this.reasoningFrom !== from) return;
    if (summaryIndex > this.summaryIndex) {
      // Only between parts that both carry text: a break before the first text would be noise.
      if (this.openHasDelta) this.emit({ type: 'reasoning-part-break', block: this.openBlock });
      this.summaryIndex = summaryIndex;
    }
    this.openHasDelta = true;
    this.emit({ type: 'reasoning-delta', block: this.openBlock, text: delta });
  }

  /** The text of a reasoning item that never streamed: its summary parts, else its reasoning text. */
  private reasoningFromItem(item: OutputItemWire): void {
    const parts: readonly ContentPartWire[] | null | undefined = Array.isArray(item.summary) && item.summary.length > 0 ? item.summary : item.content;
    if (!Array.isArray(parts)) return;
    let any = false;
    for (const part of parts) {
      const text = part.text;
      if (typeof text !== 'string' || text === '') continue;
      if (any) this.emit({ type: 'reasoning-part-break', block: this.openBlock });
      any = true;
      this.emit({ type: 'reasoning-delta', block: this.openBlock, text });
    }
  }

  // ---- tool calls --------------------------------------------------------------------------------

  private startCall(item: OutputItemWire, index: number, kind: ToolKind, initial: string | null | undefined): void {
    const wire = typeof item.name === 'string' ? item.name : '';
    const ns = typeof item.namespace === 'string' && item.namespace !== '' ? item.namespace : undefined;
    const name = this.names.callerName(wire, ns);
    const id = this.callerId(item.call_id, index);
    this.openBlockOf(TOOL, index);
    this.argsDone = undefined;
    this.toolCalls++;
    this.emit(
      ns === undefined
        ? { type: 'tool-call-start', block: this.openBlock, id, name, kind }
        : { type: 'tool-call-start', block: this.openBlock, id, name, kind, namespace: ns },
    );
    if (typeof initial === 'string' && initial !== '') {
      this.openHasDelta = true;
      this.emit({ type: 'tool-call-delta', block: this.openBlock, argumentsDelta: initial });
    }
  }

  private toolDelta(delta: string | undefined, index: number): void {
    // A fragment for a call that is not the open block cannot reach the caller (blocks are sequential).
    if (typeof delta !== 'string' || delta === '' || this.open !== TOOL || this.openIndex !== index) return;
    this.openHasDelta = true;
    this.emit({ type: 'tool-call-delta', block: this.openBlock, argumentsDelta: delta });
  }

  /** `full`: the complete arguments when the upstream gave them; else the deltas stand. */
  private endCall(full: string | undefined): void {
    if (!this.openHasDelta && full !== undefined && full !== '') {
      this.emit({ type: 'tool-call-delta', block: this.openBlock, argumentsDelta: full });
    }
    this.emit(full === undefined ? { type: 'tool-call-end', block: this.openBlock } : { type: 'tool-call-end', block: this.openBlock, arguments: full });
    this.open = NONE;
  }

  /** The caller-facing id; a missing or repeated upstream id gets a unique one (mapping.md §6). */
  private callerId(upstream: string | null | undefined, index: number): string {
    const ids = (this.callIds ??= new Set());
    let id = typeof upstream === 'string' && upstream !== '' && !ids.has(upstream) ? upstream : 'call_' + this.responseId + '_' + index;
    if (ids.has(id)) id = id + '_' + ids.size;
    ids.add(id);
    return toCallerId(id);
  }

  // ---- blocks ------------------------------------------------------------------------------------

  private openBlockOf(kind: number, index: number): void {
    this.open = kind;
    this.openBlock = this.nextBlock++;
    this.openIndex = index;
    this.openHasDelta = false;
    this.itemBlocks++;
  }

  private closeOpen(): void {
    switch (this.open) {
      case TEXT:
        this.emit({ type: 'text-end', block: this.openBlock });
        break;
      case REASONING:
        // Without its output_item.done there is no opaque state to carry.
        this.emit({ type: 'reasoning-end', block: this.openBlock });
        break;
      case TOOL:
        this.endCall(this.argsDone);
        break;
      default:
        return;
    }
    this.open = NONE;
  }

  // ---- terminal ----------------------------------------------------------------------------------

  private terminal(response: ResponseWire | null | undefined, completed: boolean): void {
    this.ensureStarted();
    this.closeOpen();
    const output = response?.output;
    // Nothing streamed, yet the response has output: a server that only sent the final object.
    if (this.nextBlock === 0 && Array.isArray(output)) {
      for (let i = 0; i < output.length; i++) {
        const item = output[i];
        if (item && typeof item === 'object') this.itemDone(item, i);
      }
      this.closeOpen();
    }
    this.emit({ type: 'usage', usage: mapResponsesUsage(response?.usage) });
    this.emit({
      type: 'finish',
      finish: completed ? finishForCompleted(this.toolCalls > 0, this.refusal) : finishForIncomplete(response?.incomplete_details?.reason),
    });
    this.done = true;
  }

  private failed(response: ResponseWire | null | undefined): void {
    const { facts, kind } = failedResponseError(response);
    this.fail(kind, facts.message);
  }

  private errorEvent(ev: StreamEventWire): void {
    const { facts, kind } = errorEventError(ev);
    this.fail(kind, facts.message);
  }

  private fail(kind: string, message: string): void {
    this.done = true;
    this.emit({ type: 'error', error: { kind, message } });
  }
}

function indexOf(ev: StreamEventWire): number {
  return typeof ev.output_index === 'number' ? ev.output_index : -1;
}

function carryOf(item: OutputItemWire): ReasoningCarry {
  return {
    family: 'openai',
    id: typeof item.id === 'string' ? item.id : '',
    encryptedContent: typeof item.encrypted_content === 'string' ? item.encrypted_content : null,
    summary: Array.isArray(item.summary) ? item.summary : [],
  };
}

export function createResponsesEventDecoder(req: IrRequest, emit: (ev: IrEvent) => void): EventDecoder {
  return new ResponsesEventDecoder(req, emit);
}
