// Gemini answers → IR events (gemini.md §6–§10, mapping.md §16). A streamed answer is a series of SSE
// `data:` frames, each a whole GenerateContentResponse holding the next parts; the stream ends when the
// connection does, after a frame with a `finishReason`. A non-streamed answer is the same object once,
// fed through the same decoder (decode-result.ts), so both modes agree.
//
// Parts become blocks: consecutive thought parts one reasoning block, consecutive text parts one text
// block, each function call its own tool-call block (Gemini sends calls whole). Thought signatures ride
// on reasoning blocks (§6): a signed thought part closes its block with the signature; a signature on an
// answer part (a function call or text) closes the open reasoning block — or an empty one made for it —
// with `on: 'next'`, so the encoder can put it back on that same part.
import { ToolLookup } from '../../ir/tool-names.js';
import type { IrEvent, IrRequest, ReasoningCarry, Usage } from '../../ir/types.js';
import type { GeminiResponse, GeminiResponsePart } from '../../protocols/gemini/response.js';
import type { SseFrame } from '../sse-parser.js';
import { parseStreamFrame } from '../stream-frame.js';
import type { EventDecoder } from '../types.js';
import { GeminiCallIds } from './call-ids.js';
import { errorFacts, geminiErrorKind } from './decode-error.js';
import { mapGeminiFinish } from './map-finish.js';
import { mapGeminiUsage } from './map-usage.js';
import { GEMINI_TOOL_NAME_MAX, unwrapCustomInput } from './tool-names.js';

const NONE = 0;
const TEXT = 1;
const REASONING = 2;

const UNSIGNED_THOUGHT: ReasoningCarry = Object.freeze({ family: 'google', signature: null, on: 'thought' }) as ReasoningCarry;

export class GeminiEventDecoder implements EventDecoder {
  private readonly tools: ToolLookup;
  private started = false;
  private done = false;
  private ids: GeminiCallIds | undefined;
  private nextBlock = 0;
  private open = NONE;
  private openBlock = -1;
  private calls = 0;
  private finishRaw: string | undefined;
  private finishMessage: string | undefined;
  /** The latest chunk's usage (every chunk repeats it, cumulative), counted into one object: keeping each
   * chunk's own would hold a parsed object per stream until the next chunk, long enough to be promoted. */
  private usage: Usage | undefined;

  constructor(
    req: IrRequest,
    private readonly emit: (ev: IrEvent) => void,
  ) {
    this.tools = new ToolLookup(req.tools, GEMINI_TOOL_NAME_MAX);
  }

  frame(frame: SseFrame): void {
    if (this.done) return;
    const chunk = parseStreamFrame<GeminiResponse>(frame.data);
    if (typeof chunk === 'string') {
      this.fail('api_error', chunk);
      return;
    }
    this.response(chunk);
  }

  /** One GenerateContentResponse: a stream frame, or the whole non-streamed answer. */
  response(chunk: GeminiResponse): void {
    if (this.done) return;
    const error = chunk.error;
    if (error && typeof error === 'object') {
      const facts = errorFacts(error);
      this.fail(geminiErrorKind(facts, undefined), facts.message, facts.code);
      return;
    }
    const candidate = Array.isArray(chunk.candidates) ? chunk.candidates[0] : undefined;
    const block = chunk.promptFeedback?.blockReason;
    if (!candidate && typeof block === 'string' && block.length > 0) {
      // The prompt itself was refused: no candidate at all (§9).
      const detail = chunk.promptFeedback?.blockReasonMessage;
      this.fail('invalid_request', `Gemini blocked the prompt (${block})` + (typeof detail === 'string' && detail ? `: ${detail}` : ''));
      return;
    }
    if (!this.started) this.start(chunk.responseId, chunk.modelVersion);
    if (chunk.usageMetadata && typeof chunk.usageMetadata === 'object') this.usage = mapGeminiUsage(chunk.usageMetadata, this.usage);
    if (!candidate || typeof candidate !== 'object') return;
    const parts = candidate.content?.parts;
    if (Array.isArray(parts)) for (const part of parts) if (part && typeof part === 'object') this.part(part);
    if (typeof candidate.finishReason === 'string' && candidate.finishReason.length > 0) {
      this.finishRaw = candidate.finishReason;
      if (typeof candidate.finishMessage === 'string') this.finishMessage = candidate.finishMessage;
    }
  }

  end(): void {
    if (this.done) return;
    if (this.finishRaw === undefined) {
      this.fail('api_error', 'upstream stream ended before a finishReason');
      return;
    }
    if (!this.started) this.start(undefined, undefined);
    this.closeOpen(UNSIGNED_THOUGHT);
    const mapped = mapGeminiFinish(this.finishRaw, this.calls > 0, this.finishMessage);
    if ('failure' in mapped) {
      this.fail('api_error', mapped.failure);
      return;
    }
    if (this.usage) this.emit({ type: 'usage', usage: this.usage });
    this.emit({ type: 'finish', finish: mapped.finish });
    this.done = true;
  }

  private start(responseId: unknown, model: unknown): void {
    this.started = true;
    const id = typeof responseId === 'string' ? responseId : '';
    this.ids = new GeminiCallIds(id);
    this.emit({ type: 'response-start', id, model: typeof model === 'string' ? model : '' });
  }

  private part(p: GeminiResponsePart): void {
    const signature = typeof p.thoughtSignature === 'string' && p.thoughtSignature.length > 0 ? p.thoughtSignature : undefined;
    const call = p.functionCall;
    if (call && typeof call === 'object') {
      if (signature !== undefined) this.signNext(signature);
      else this.closeOpen(UNSIGNED_THOUGHT);
      this.functionCall(call);
      return;
    }
    const text = typeof p.text === 'string' ? p.text : undefined;
    if (p.thought === true) {
      if (signature === undefined) {
        if (text) this.reasoningDelta(text);
        return;
      }
      // A signed thought part is its own block, so it goes back exactly as it came.
      if (this.open === REASONING) this.closeOpen(UNSIGNED_THOUGHT);
      this.reasoningDelta(text ?? '');
      this.closeOpen({ family: 'google', signature, on: 'thought' });
      return;
    }
    if (text === undefined) return; // inline images, code execution: not carried (gemini.md §8)
    if (signature !== undefined) {
      this.signNext(signature);
      if (text.length > 0) {
        this.openText();
        this.emit({ type: 'text-delta', block: this.openBlock, text });
        // The signed part's text is its own block: more text would not be what was signed.
        this.closeOpen(UNSIGNED_THOUGHT);
      }
      return;
    }
    if (text.length === 0) return;
    if (this.open !== TEXT) this.openText();
    this.emit({ type: 'text-delta', block: this.openBlock, text });
  }

  /** A signature for the answer part that follows: on the open reasoning block, or an empty one. */
  private signNext(signature: string): void {
    const carry: ReasoningCarry = { family: 'google', signature, on: 'next' };
    if (this.open === REASONING) {
      this.closeOpen(carry);
      return;
    }
    this.closeOpen(UNSIGNED_THOUGHT);
    const block = this.nextBlock++;
    this.emit({ type: 'reasoning-start', block });
    this.emit({ type: 'reasoning-end', block, carry });
  }

  private reasoningDelta(text: string): void {
    if (this.open !== REASONING) {
      this.closeOpen(UNSIGNED_THOUGHT);
      this.open = REASONING;
      this.openBlock = this.nextBlock++;
      this.emit({ type: 'reasoning-start', block: this.openBlock });
    }
    if (text.length > 0) this.emit({ type: 'reasoning-delta', block: this.openBlock, text });
  }

  private openText(): void {
    this.closeOpen(UNSIGNED_THOUGHT);
    this.open = TEXT;
    this.openBlock = this.nextBlock++;
    this.emit({ type: 'text-start', block: this.openBlock });
  }

  /** Closes the open block; a reasoning block gets `carry`. */
  private closeOpen(carry: ReasoningCarry): void {
    if (this.open === TEXT) this.emit({ type: 'text-end', block: this.openBlock });
    else if (this.open === REASONING) this.emit({ type: 'reasoning-end', block: this.openBlock, carry });
    this.open = NONE;
  }

  private functionCall(call: NonNullable<GeminiResponsePart['functionCall']>): void {
    const wireName = typeof call.name === 'string' ? call.name : '';
    const tool = this.tools.resolve(wireName);
    const args = call.args && typeof call.args === 'object' && !Array.isArray(call.args) ? (call.args as Record<string, unknown>) : {};
    const text = tool.kind === 'custom' ? unwrapCustomInput(args) : JSON.stringify(args);
    const block = this.nextBlock++;
    const id = this.ids!.next(call.id);
    this.calls++;
    this.emit(
      tool.namespace === undefined
        ? { type: 'tool-call-start', block, id, name: tool.name, kind: tool.kind }
        : { type: 'tool-call-start', block, id, name: tool.name, kind: tool.kind, namespace: tool.namespace },
    );
    if (text.length > 0) this.emit({ type: 'tool-call-delta', block, argumentsDelta: text });
    this.emit({ type: 'tool-call-end', block, arguments: text });
  }

  private fail(kind: string, message: string, status?: number): void {
    this.done = true;
    this.emit({ type: 'error', error: status === undefined ? { kind, message } : { kind, message, status } });
  }
}

export function createGeminiEventDecoder(req: IrRequest, emit: (ev: IrEvent) => void): EventDecoder {
  return new GeminiEventDecoder(req, emit);
}
