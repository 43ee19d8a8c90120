// Chat Completions stream → IR events (chat-completions.md §5, §8; mapping.md §13.4). Frames are
// `data:` lines without event names, ended by `[DONE]`; every deviation of chat-completions.md §8 is tolerated.
//
// Blocks are strictly sequential, so tool calls stream live only while the upstream sends them one after
// another. A new call index closes the current call only when its JSON is complete; when calls are
// interleaved (a new index while the current one is unfinished, or a fragment for a closed call), every
// later call is buffered and emitted whole at the end, while the open call keeps streaming.
import { ToolLookup, type ResolvedTool } from '../../ir/tool-names.js';
import type { IrEvent, IrRequest } from '../../ir/types.js';
import type {
  ChatCompletionChunk,
  ChatDelta,
  ChatDeltaToolCall,
  ChatUsage,
  ChatWireError,
} from '../../protocols/openai-chat/response.js';
import type { SseFrame } from '../sse-parser.js';
import { parseStreamFrame } from '../stream-frame.js';
import type { EventDecoder } from '../types.js';
import { CallIdAllocator } from './call-ids.js';
import { chatErrorKind, errorFacts } from './classify-error.js';
import { JsonCloseTracker } from './json-close-tracker.js';
import { mapFinishReason } from './map-finish.js';
import { mapChatUsage } from './map-usage.js';
import { argumentsText, CHAT_TOOL_NAME_MAX, unwrapCustomInput } from './tool-lookup.js';
import { keepFlat } from '../../ir/keep-flat.js';

// What block is open (numbers rather than strings: compared on every delta).
const NONE = 0;
const TEXT = 1;
const REFUSAL = 2;
const REASONING = 3;
const TOOL = 4;

// Tool call lifecycle.
const BUFFERED = 0;
const OPEN = 1;
const CLOSED = 2;

interface CallState {
  /** The id the upstream sent for this call (undefined when it sent none). */
  upstreamId: string | undefined;
  callerId: string;
  wireName: string;
  args: string;
  state: number;
  block: number;
  started: boolean;
  tool: ResolvedTool | undefined;
}

export class ChatEventDecoder implements EventDecoder {
  private readonly tools: ToolLookup;
  private started = false;
  private done = false;
  private ids: CallIdAllocator | undefined;
  private nextBlock = 0;
  private open = NONE;
  private openBlock = -1;
  private reasoningText = '';
  /** Deltas appended to `reasoningText` so far (keepFlat). */
  private appends = 0;
  private readonly calls: CallState[] = [];
  private readonly byIndex = new Map<number, CallState>();
  /** The tool call whose block is open (when `open === TOOL`). */
  private active: CallState | undefined;
  private readonly tracker = new JsonCloseTracker();
  private buffering = false;
  private finishRaw: string | undefined;
  /** Kept raw and mapped once at the end: some servers send usage on every chunk. */
  private usage: ChatUsage | undefined;

  constructor(
    req: IrRequest,
    private readonly emit: (ev: IrEvent) => void,
  ) {
    this.tools = new ToolLookup(req.tools, CHAT_TOOL_NAME_MAX);
  }

  frame(frame: SseFrame): void {
    if (this.done) return;
    const data = frame.data;
    if (data === '[DONE]') {
      this.complete();
      return;
    }
    const chunk = parseStreamFrame<ChatCompletionChunk>(data);
    if (typeof chunk === 'string') {
      this.fail('api_error', chunk);
      return;
    }
    if (chunk.error !== undefined && chunk.error !== null) {
      this.failWith(chunk.error);
      return;
    }
    if (chunk.object === 'error') {
      this.failWith(chunk as ChatWireError);
      return;
    }
    const choices = chunk.choices;
    const choice = Array.isArray(choices) ? choices[0] : undefined;
    const usage = chunk.usage;
    // `choices: []` without usage: Azure's prompt-filter chunk and similar; nothing to say yet.
    if (choice === undefined && !usage) return;
    if (!this.started) this.start(chunk.id, chunk.model);
    if (usage) this.usage = usage;
    if (!choice) return;
    const delta = choice.delta;
    if (delta) this.delta(delta);
    const finish = choice.finish_reason;
    if (typeof finish === 'string' && finish.length > 0) this.finishRaw = finish;
  }

  end(): void {
    if (this.done) return;
    // Without [DONE], a stream is complete only if the upstream said why it stopped.
    if (this.finishRaw !== undefined) this.complete();
    else this.fail('api_error', 'upstream stream ended before finish_reason');
  }

  private start(id: unknown, model: unknown): void {
    this.started = true;
    const responseId = typeof id === 'string' ? id : '';
    this.ids = new CallIdAllocator(responseId);
    this.emit({ type: 'response-start', id: responseId, model: typeof model === 'string' ? model : '' });
  }

  private delta(d: ChatDelta): void {
    const rc = d.reasoning_content;
    const reasoning = typeof rc === 'string' && rc.length > 0 ? rc : d.reasoning;
    if (typeof reasoning === 'string' && reasoning.length > 0) this.reasoningDelta(reasoning);
    const content = d.content;
    if (typeof content === 'string' && content.length > 0) this.textDelta(content, TEXT);
    const refusal = d.refusal;
    if (typeof refusal === 'string' && refusal.length > 0) this.textDelta(refusal, REFUSAL);
    const toolCalls = d.tool_calls;
    if (Array.isArray(toolCalls)) {
      for (let p = 0; p < toolCalls.length; p++) this.toolFragment(toolCalls[p], p);
    }
  }

  private reasoningDelta(text: string): void {
    if (this.open !== REASONING) {
      this.closeOpen();
      this.open = REASONING;
      this.openBlock = this.nextBlock++;
      this.emit({ type: 'reasoning-start', block: this.openBlock });
    }
    this.reasoningText = keepFlat(this.reasoningText + text, ++this.appends);
    this.emit({ type: 'reasoning-delta', block: this.openBlock, text });
  }

  private textDelta(text: string, kind: typeof TEXT | typeof REFUSAL): void {
    if (this.open !== kind) {
      this.closeOpen();
      this.open = kind;
      this.openBlock = this.nextBlock++;
      this.emit(kind === REFUSAL ? { type: 'text-start', block: this.openBlock, refusal: true } : { type: 'text-start', block: this.openBlock });
    }
    this.emit({ type: 'text-delta', block: this.openBlock, text });
  }

  private closeOpen(): void {
    switch (this.open) {
      case TEXT:
      case REFUSAL:
        this.emit({ type: 'text-end', block: this.openBlock });
        break;
      case REASONING:
        this.emit({ type: 'reasoning-end', block: this.openBlock, carry: { family: 'chat', text: this.reasoningText } });
        this.reasoningText = '';
        break;
      case TOOL:
        if (this.active) this.closeCall(this.active);
        this.active = undefined;
        break;
      default:
        break;
    }
    this.open = NONE;
  }

  private toolFragment(tc: ChatDeltaToolCall | undefined, position: number): void {
    if (!tc || typeof tc !== 'object') return;
    const index = typeof tc.index === 'number' ? tc.index : position;
    const id = typeof tc.id === 'string' && tc.id.length > 0 ? tc.id : undefined;
    const fn = tc.function;
    const name = fn && typeof fn.name === 'string' && fn.name.length > 0 ? fn.name : undefined;
    const args = fn ? argumentsText(fn.arguments) : '';
    let call = this.byIndex.get(index);
    // A different id on a used index is a new call (servers that put every call at index 0).
    if (call === undefined || (id !== undefined && call.upstreamId !== undefined && id !== call.upstreamId)) {
      call = {
        upstreamId: id,
        callerId: this.ids!.next(id),
        wireName: '',
        args: '',
        state: BUFFERED,
        block: -1,
        started: false,
        tool: undefined,
      };
      this.calls.push(call);
      this.byIndex.set(index, call);
      if (!this.buffering) {
        if (this.open === TOOL && this.active && !this.tracker.closed) this.buffering = true;
        else this.activate(call, name);
      }
    }
    if (name !== undefined && call.wireName === '') call.wireName = name;
    switch (call.state) {
      case OPEN:
        if (args.length > 0) {
          call.args += args;
          this.tracker.feed(args);
        }
        if (!call.started) {
          if (call.wireName !== '') this.startCall(call);
        } else if (args.length > 0 && call.tool!.kind !== 'custom') {
          this.emit({ type: 'tool-call-delta', block: call.block, argumentsDelta: args });
        }
        break;
      case BUFFERED:
        call.args += args;
        break;
      default:
        // A late fragment for a call whose block is already closed: it cannot reach the caller's
        // stream any more; at least keep every later call whole.
        if (args.length > 0) {
          call.args += args;
          this.buffering = true;
        }
        break;
    }
  }

  private activate(call: CallState, name: string | undefined): void {
    this.closeOpen();
    call.state = OPEN;
    this.active = call;
    this.open = TOOL;
    this.tracker.reset();
    if (name !== undefined) {
      call.wireName = name;
      this.startCall(call);
    }
  }

  /** tool-call-start, plus the arguments gathered so far (buffered calls, or a name that came late). */
  private startCall(call: CallState): void {
    const tool = this.tools.resolve(call.wireName);
    call.tool = tool;
    call.started = true;
    call.block = this.nextBlock++;
    this.emit(
      tool.namespace === undefined
        ? { type: 'tool-call-start', block: call.block, id: call.callerId, name: tool.name, kind: tool.kind }
        : { type: 'tool-call-start', block: call.block, id: call.callerId, name: tool.name, kind: tool.kind, namespace: tool.namespace },
    );
    if (call.args.length > 0 && tool.kind !== 'custom') {
      this.emit({ type: 'tool-call-delta', block: call.block, argumentsDelta: call.args });
    }
  }

  private closeCall(call: CallState): void {
    if (!call.started) this.startCall(call);
    call.state = CLOSED;
    if (call.tool!.kind === 'custom') {
      // Custom tools went upstream as functions taking {"input": string}: the caller wants the raw input.
      const input = unwrapCustomInput(call.args);
      if (input.length > 0) this.emit({ type: 'tool-call-delta', block: call.block, argumentsDelta: input });
      this.emit({ type: 'tool-call-end', block: call.block, arguments: input });
    } else {
      this.emit({ type: 'tool-call-end', block: call.block, arguments: call.args });
    }
  }

  /** [DONE], or end of body after a finish_reason: close, flush buffered calls, usage, finish. */
  private complete(): void {
    if (!this.started) this.start(undefined, undefined);
    this.closeOpen();
    for (const call of this.calls) {
      if (call.state === BUFFERED) this.closeCall(call);
    }
    const raw = this.finishRaw ?? null;
    const finish = mapFinishReason(raw, this.calls.length > 0);
    if (!finish) {
      this.fail('api_error', `upstream ended the generation with finish_reason "${raw}"`);
      return;
    }
    if (this.usage) this.emit({ type: 'usage', usage: mapChatUsage(this.usage) });
    this.emit({ type: 'finish', finish });
    this.done = true;
  }

  private failWith(error: ChatWireError | string): void {
    const facts = errorFacts(error);
    const kind = chatErrorKind(facts, undefined);
    this.done = true;
    this.emit({
      type: 'error',
      error: facts.status === undefined ? { kind, message: facts.message } : { kind, message: facts.message, status: facts.status },
    });
  }

  private fail(kind: string, message: string): void {
    this.done = true;
    this.emit({ type: 'error', error: { kind, message } });
  }
}

export function createChatEventDecoder(req: IrRequest, emit: (ev: IrEvent) => void): EventDecoder {
  return new ChatEventDecoder(req, emit);
}
