// IR events → Responses SSE (responses.md §9, mapping.md §13): response.created and
// response.in_progress, then one output item at a time (added → content events → done), then exactly
// one terminal event carrying the full response — the same object encodeResult renders for the folded
// events. One sequence_number counter for every event; output_index is the item's place in `output`.
//
// An item's `output_item.done` is held back until the next item starts or the answer ends, because
// only the finish says whether the last item was cut short (`status:"incomplete"`). Deltas outside
// their IR block are ignored, exactly as foldEvents ignores them, so both modes stay equal.
import type { IrEvent, ReasoningCarry, ToolKind, Usage } from '../../ir/types.js';
import { emptyUsage } from '../../ir/types.js';
import { SSE_FRAME_END, sseComment, sseFrameHead } from '../sse.js';
import type { EncodeContext, StreamEncoder } from '../types.js';
import { failedCodeFor, streamErrorTypeFor, terminalFor } from './map-finish.js';
import { usageJson } from './map-usage.js';
import {
  ADDED_REASONING_TAIL,
  EMPTY_OUTPUT_TEXT_PART,
  EMPTY_REFUSAL_PART,
  customCallItemJson,
  encryptedContentJson,
  functionArguments,
  functionCallItemJson,
  idStem,
  itemId,
  messageItemJson,
  outputTextPartJson,
  reasoningItemJson,
  refusalPartJson,
  summaryJson,
  type ItemStatus,
} from './output-items.js';
import { completedAtNow, responseJson, responseShape, type ResponseShape } from './response-object.js';
import { keepFlat } from '../../ir/keep-flat.js';

export const KEEP_ALIVE = sseComment('keep-alive');
const EMPTY_SUMMARY_PART = '{"type":"summary_text","text":""}';

/** Every event's frame up to its `sequence_number` value, built once per event type. */
const FRAME_HEADS = new Map<string, string>();

function frameHead(type: string): string {
  let head = FRAME_HEADS.get(type);
  if (head === undefined) {
    head = sseFrameHead(type, '{"type":"' + type + '","sequence_number":');
    FRAME_HEADS.set(type, head);
  }
  return head;
}

const TEXT_DELTA_HEAD = frameHead('response.output_text.delta');
const REFUSAL_DELTA_HEAD = frameHead('response.refusal.delta');

/** The IR block currently open (what foldEvents would append deltas to). */
const enum Block {
  None,
  Text,
  Reasoning,
  Call,
}

/** The output item currently in hand. */
const enum Item {
  None,
  Message,
  Reasoning,
  Call,
}

/** Open: content events may follow. Closed: content done, `output_item.done` not yet written. */
const enum Phase {
  None,
  Open,
  Closed,
}

export function createStreamEncoder(ctx: EncodeContext, write: (frame: string) => void): StreamEncoder {
  return new ResponsesStreamEncoder(ctx, write);
}

class ResponsesStreamEncoder implements StreamEncoder {
  private readonly shape: ResponseShape;
  private readonly stem: string;
  private readonly createdAt: number;
  private seq = 0;
  private started = false;
  private done = false;
  private usage: Usage | undefined;
  /** `completed_at` of the terminal completed/incomplete frame (StreamEncoder.completedAt). */
  private completed: number | undefined;
  /** Final JSON of every item whose `output_item.done` went out, in output order. */
  private readonly items: string[] = [];

  private block = Block.None;
  /** The open IR text block is a refusal. */
  private refusalBlock = false;

  private item = Item.None;
  private phase = Phase.None;
  private index = 0;
  private id = '';
  private idJson = '';
  /** `,"item_id":…,"output_index":N` for every event about the current item. */
  private ref = '';
  /** The current item's (or summary part's) delta event up to its `delta` value, built once. */
  private deltaHead = '';
  /** Message text, reasoning text (folded like foldEvents) or call arguments so far. */
  private text = '';
  /** Deltas appended to `text` so far (keepFlat). */
  private appends = 0;
  private refusal = false;
  private cutShort = false;
  // reasoning
  private summaryIndex = 0;
  private partOpen = false;
  private partText = '';
  private carry: ReasoningCarry | undefined;
  // tool call
  private kind: ToolKind = 'function';
  private callIdJson = '';
  private nameJson = '';
  private namespaceJson: string | undefined;
  private sentDelta = false;

  constructor(
    ctx: EncodeContext,
    private readonly write: (frame: string) => void,
  ) {
    this.shape = responseShape(ctx);
    this.stem = idStem(ctx.responseId);
    this.createdAt = ctx.createdAt;
  }

  get finished(): boolean {
    return this.done;
  }

  get completedAt(): number | undefined {
    return this.completed;
  }

  ping(): void {
    if (!this.done) this.write(KEEP_ALIVE);
  }

  event(ev: IrEvent): void {
    if (this.done) return;
    if (!this.started) this.start();
    switch (ev.type) {
      case 'response-start':
        if (ev.usage) this.usage = { ...ev.usage };
        return;
      case 'text-start':
        this.closeItem(false);
        this.block = Block.Text;
        this.refusalBlock = ev.refusal === true;
        return;
      case 'text-delta':
        if (this.block !== Block.Text || ev.text === '') return;
        if (this.item !== Item.Message || this.phase !== Phase.Open) this.openMessage();
        this.text = keepFlat(this.text + ev.text, ++this.appends);
        this.write(
          this.refusal
            ? REFUSAL_DELTA_HEAD + this.seq++ + this.deltaHead + JSON.stringify(ev.text) + '}' + SSE_FRAME_END
            : TEXT_DELTA_HEAD + this.seq++ + this.deltaHead + JSON.stringify(ev.text) + ',"logprobs":[]}' + SSE_FRAME_END,
        );
        return;
      case 'text-end':
        this.endBlock();
        return;
      case 'reasoning-start':
        this.closeItem(false);
        this.block = Block.Reasoning;
        this.openReasoning();
        return;
      case 'reasoning-delta':
        if (this.block !== Block.Reasoning) return;
        this.text = keepFlat(this.text + ev.text, ++this.appends);
        if (!this.shape.summaryAsked || ev.text === '') return;
        if (!this.partOpen) {
          this.partOpen = true;
          this.partText = '';
          this.deltaHead = this.ref + ',"summary_index":' + this.summaryIndex + ',"delta":';
          this.emit('response.reasoning_summary_part.added', this.ref + ',"summary_index":' + this.summaryIndex + ',"part":' + EMPTY_SUMMARY_PART + '}');
        }
        this.partText = keepFlat(this.partText + ev.text, this.appends);
        this.emit('response.reasoning_summary_text.delta', this.deltaHead + JSON.stringify(ev.text) + '}');
        return;
      case 'reasoning-part-break':
        if (this.block !== Block.Reasoning) return;
        if (this.text !== '') this.text += '\n\n';
        this.closeSummaryPart();
        return;
      case 'reasoning-end':
        if (this.block === Block.Reasoning && this.item === Item.Reasoning && ev.carry) this.carry = ev.carry;
        this.endBlock();
        return;
      case 'tool-call-start':
        this.closeItem(false);
        this.block = Block.Call;
        this.openCall(ev.id, ev.name, ev.kind, ev.namespace);
        return;
      case 'tool-call-delta':
        if (this.block !== Block.Call || ev.argumentsDelta === '') return;
        this.text = keepFlat(this.text + ev.argumentsDelta, ++this.appends);
        this.sentDelta = true;
        this.emit(
          this.kind === 'custom' ? 'response.custom_tool_call_input.delta' : 'response.function_call_arguments.delta',
          this.deltaHead + JSON.stringify(ev.argumentsDelta) + '}',
        );
        return;
      case 'tool-call-end':
        if (this.block === Block.Call && this.item === Item.Call && ev.arguments !== undefined) this.text = ev.arguments;
        this.endBlock();
        return;
      case 'usage':
        this.usage = ev.usage;
        return;
      case 'finish': {
        this.closeItem(false);
        const terminal = terminalFor(ev.finish.reason);
        this.flushItem(terminal.status === 'incomplete' ? 'incomplete' : 'completed');
        const type = terminal.status === 'completed' ? 'response.completed' : 'response.incomplete';
        const completedAt = completedAtNow(this.createdAt);
        this.completed = completedAt;
        const response = responseJson(this.shape, terminal.status, completedAt, 'null', terminal.incompleteJson, this.output(), usageJson(this.usage ?? emptyUsage()));
        this.emit(type, ',"response":' + response + '}');
        this.done = true;
        return;
      }
      case 'error': {
        // Items still open were cut short; items already ended keep their status.
        this.closeItem(true);
        this.flushItem('completed');
        const code = JSON.stringify(failedCodeFor(ev.error.kind));
        const message = JSON.stringify(ev.error.message);
        this.emit(
          'error',
          ',"code":' + code + ',"message":' + message + ',"param":null,"error":{"type":"' + streamErrorTypeFor(ev.error.kind) +
            '","code":' + code + ',"message":' + message + ',"param":null}}',
        );
        const errorJson = '{"code":' + code + ',"message":' + message + '}';
        const usage = this.usage === undefined ? 'null' : usageJson(this.usage);
        this.emit('response.failed', ',"response":' + responseJson(this.shape, 'failed', null, errorJson, 'null', this.output(), usage) + '}');
        this.done = true;
        return;
      }
      default: {
        const never: never = ev;
        return never;
      }
    }
  }

  // --- frames ---------------------------------------------------------------------------------

  /** One event; `rest` continues the JSON after `sequence_number` (starts with `,` or is `}`). */
  private emit(type: string, rest: string): void {
    this.write(frameHead(type) + this.seq++ + rest + SSE_FRAME_END);
  }

  private start(): void {
    this.started = true;
    const snapshot = ',"response":' + responseJson(this.shape, 'in_progress', null, 'null', 'null', '[]', 'null') + '}';
    this.emit('response.created', snapshot);
    this.emit('response.in_progress', snapshot);
  }

  private output(): string {
    return '[' + this.items.join(',') + ']';
  }

  // --- item lifecycle -------------------------------------------------------------------------

  /** Writes the held-back item's `output_item.done` and any `output_item.added` for a new one. */
  private openItem(item: Item, prefix: 'msg' | 'rs' | 'fc' | 'ctc'): void {
    this.flushItem('completed');
    this.item = item;
    this.phase = Phase.Open;
    this.index = this.items.length;
    this.id = itemId(prefix, this.stem, this.index);
    this.idJson = JSON.stringify(this.id);
    this.ref = ',"item_id":' + this.idJson + ',"output_index":' + this.index;
    this.text = '';
    this.cutShort = false;
  }

  private added(itemJson: string): void {
    this.emit('response.output_item.added', ',"output_index":' + this.index + ',"item":' + itemJson + '}');
  }

  private openMessage(): void {
    this.openItem(Item.Message, 'msg');
    this.refusal = this.refusalBlock;
    this.deltaHead = this.ref + ',"content_index":0,"delta":';
    this.added(messageItemJson(this.idJson, 'in_progress', ''));
    this.emit(
      'response.content_part.added',
      this.ref + ',"content_index":0,"part":' + (this.refusal ? EMPTY_REFUSAL_PART : EMPTY_OUTPUT_TEXT_PART) + '}',
    );
  }

  private openReasoning(): void {
    this.openItem(Item.Reasoning, 'rs');
    this.summaryIndex = 0;
    this.partOpen = false;
    this.carry = undefined;
    this.added('{"id":' + this.idJson + ADDED_REASONING_TAIL);
  }

  private openCall(callId: string, name: string, kind: ToolKind, namespace: string | undefined): void {
    this.openItem(Item.Call, kind === 'custom' ? 'ctc' : 'fc');
    this.kind = kind;
    this.callIdJson = JSON.stringify(callId);
    this.nameJson = JSON.stringify(name);
    this.namespaceJson = namespace === undefined ? undefined : JSON.stringify(namespace);
    this.sentDelta = false;
    this.deltaHead = this.ref + ',"delta":';
    this.added(
      kind === 'custom'
        ? customCallItemJson(this.idJson, 'in_progress', this.callIdJson, this.nameJson, '""', this.namespaceJson)
        : functionCallItemJson(this.idJson, 'in_progress', '""', this.callIdJson, this.nameJson, this.namespaceJson),
    );
  }

  /** The IR block ended (any `-end` event ends whatever is open, as in foldEvents). */
  private endBlock(): void {
    this.block = Block.None;
    this.closeItem(false);
  }

  private closeSummaryPart(): void {
    if (!this.partOpen) return;
    const textJson = JSON.stringify(this.partText);
    const at = this.ref + ',"summary_index":' + this.summaryIndex;
    this.emit('response.reasoning_summary_text.done', at + ',"text":' + textJson + '}');
    this.emit('response.reasoning_summary_part.done', at + ',"part":{"type":"summary_text","text":' + textJson + '}}');
    this.partOpen = false;
    this.summaryIndex++;
  }

  /** Ends the open item's content (its `*.done` events); `output_item.done` waits for flushItem. */
  private closeItem(cutShort: boolean): void {
    if (this.phase !== Phase.Open) return;
    this.phase = Phase.Closed;
    this.cutShort = cutShort;
    if (cutShort) this.block = Block.None;
    switch (this.item) {
      case Item.Message: {
        const textJson = JSON.stringify(this.text);
        if (this.refusal) this.emit('response.refusal.done', this.ref + ',"content_index":0,"refusal":' + textJson + '}');
        else this.emit('response.output_text.done', this.ref + ',"content_index":0,"text":' + textJson + ',"logprobs":[]}');
        this.emit(
          'response.content_part.done',
          this.ref + ',"content_index":0,"part":' + (this.refusal ? refusalPartJson(textJson) : outputTextPartJson(textJson)) + '}',
        );
        return;
      }
      case Item.Reasoning:
        this.closeSummaryPart();
        return;
      case Item.Call: {
        if (this.kind === 'custom') {
          const inputJson = JSON.stringify(this.text);
          if (!this.sentDelta && this.text !== '') this.emit('response.custom_tool_call_input.delta', this.ref + ',"delta":' + inputJson + '}');
          this.emit('response.custom_tool_call_input.done', this.ref + ',"input":' + inputJson + '}');
          return;
        }
        this.text = functionArguments(this.text);
        const argsJson = JSON.stringify(this.text);
        if (!this.sentDelta) this.emit('response.function_call_arguments.delta', this.ref + ',"delta":' + argsJson + '}');
        this.emit('response.function_call_arguments.done', this.ref + ',"arguments":' + argsJson + ',"name":' + this.nameJson + '}');
        return;
      }
      case Item.None:
        return;
      default: {
        const never: never = this.item;
        return never;
      }
    }
  }

  /** Writes `output_item.done` for a closed item; `status` is what the answer's end says about it. */
  private flushItem(status: ItemStatus): void {
    if (this.phase !== Phase.Closed) return;
    const final: ItemStatus = this.cutShort ? 'incomplete' : status;
    let json: string;
    switch (this.item) {
      case Item.Message: {
        const textJson = JSON.stringify(this.text);
        json = messageItemJson(this.idJson, final, this.refusal ? refusalPartJson(textJson) : outputTextPartJson(textJson));
        break;
      }
      case Item.Reasoning:
        json = reasoningItemJson(
          this.idJson,
          summaryJson(this.shape.summaryAsked, this.text, this.carry),
          encryptedContentJson(this.id, this.text, this.carry),
          final === 'incomplete',
        );
        break;
      case Item.Call:
        json =
          this.kind === 'custom'
            ? customCallItemJson(this.idJson, final, this.callIdJson, this.nameJson, JSON.stringify(this.text), this.namespaceJson)
            : functionCallItemJson(this.idJson, final, JSON.stringify(this.text), this.callIdJson, this.nameJson, this.namespaceJson);
        break;
      case Item.None:
        return;
      default: {
        const never: never = this.item;
        return never;
      }
    }
    this.emit('response.output_item.done', ',"output_index":' + this.index + ',"item":' + json + '}');
    this.items.push(json);
    this.item = Item.None;
    this.phase = Phase.None;
  }
}
