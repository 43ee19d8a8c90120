// IR events → streamGenerateContent chunks (gemini.md §8), in either stream form (stream-form.ts).
// Each text or thought delta is a chunk of one part; a function call is one whole part (Gemini never
// streams arguments by default), sent when its arguments are complete; the last chunk carries the
// finish reason and usage. A failure after the first chunk is Google's in-stream `{"error":…}` object,
// then the stream ends.
import type { IrEvent, Usage } from '../../ir/types.js';
import { emptyUsage } from '../../ir/types.js';
import type { EncodeContext, StreamEncoder } from '../types.js';
import { callPartJson, ChunkShape, showsThoughts, signatureOf, textPartJson, thoughtPartJson } from './answer-parts.js';
import { errorBodyJson } from './encode-error.js';
import { geminiFinishReason } from './map-finish.js';
import { usageMetadataJson } from './map-usage.js';
import { StreamFraming, type StreamForm } from './stream-form.js';

export function createStreamEncoder(form: StreamForm, ctx: EncodeContext, write: (frame: string) => void): StreamEncoder {
  return new GeminiStreamEncoder(form, ctx, write);
}

class GeminiStreamEncoder implements StreamEncoder {
  finished = false;
  private readonly framing: StreamFraming;
  private readonly shape: ChunkShape;
  private readonly show: boolean;
  /** A signature waiting for the next answer part. */
  private pending: string | undefined;
  private usage: Usage | undefined;
  private call: { id: string; name: string; args: string } | undefined;

  constructor(
    form: StreamForm,
    ctx: EncodeContext,
    private readonly write: (frame: string) => void,
  ) {
    this.framing = new StreamFraming(form);
    this.shape = new ChunkShape(ctx.request.model, ctx.responseId);
    this.show = showsThoughts(ctx.request);
  }

  event(ev: IrEvent): void {
    if (this.finished) return;
    switch (ev.type) {
      case 'text-delta':
        if (ev.text === '') return;
        this.emit(textPartJson(ev.text, this.takePending()));
        return;
      case 'reasoning-delta':
        if (this.show && ev.text !== '') this.emit(thoughtPartJson(ev.text));
        return;
      case 'reasoning-end': {
        const sig = signatureOf(ev.carry);
        if (sig === undefined) return;
        if (this.pending !== undefined) this.emit(textPartJson('', this.pending));
        this.pending = sig;
        return;
      }
      case 'tool-call-start':
        this.call = { id: ev.id, name: ev.name, args: '' };
        return;
      case 'tool-call-delta':
        if (this.call) this.call.args += ev.argumentsDelta;
        return;
      case 'tool-call-end': {
        const call = this.call;
        this.call = undefined;
        if (call) this.emit(callPartJson(call.id, call.name, ev.arguments ?? call.args, this.takePending()));
        return;
      }
      case 'usage':
        this.usage = ev.usage;
        return;
      case 'finish': {
        const parts = textPartJson('', this.takePending());
        this.finished = true;
        this.write(this.framing.last(this.shape.final(parts, geminiFinishReason(ev.finish), usageMetadataJson(this.usage ?? emptyUsage()))));
        return;
      }
      case 'error':
        this.finished = true;
        this.write(this.framing.last(errorBodyJson(ev.error.kind, ev.error.message)));
        return;
      case 'response-start':
      case 'text-start':
      case 'text-end':
      case 'reasoning-start':
      case 'reasoning-part-break':
        return;
      default: {
        const never: never = ev;
        return never;
      }
    }
  }

  ping(): void {
    this.write(this.framing.keepAlive());
  }

  private takePending(): string | undefined {
    const sig = this.pending;
    this.pending = undefined;
    return sig;
  }

  private emit(part: string): void {
    this.write(this.framing.chunk(this.shape.partial(part)));
  }
}
