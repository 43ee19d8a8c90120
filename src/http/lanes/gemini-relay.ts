// Pass-through relay for Gemini streams (gemini.md §8): each upstream `data:` chunk goes to the caller
// as it came, in the caller's stream form (SSE as is; the JSON-array form wraps the same chunks). Only
// a chunk that carries a finish reason or an error is parsed (usage and the finish for the record);
// Gemini has no end marker, so the stream is whole once a chunk with a finish reason went through.
// Failure chunks are classified by the driver (Driver.decodeStreamError), as in the translation lane.
import { maskedForCaller } from '../caller-safe-error.js';
import { errorBodyJson } from '../../codecs/gemini/encode-error.js';
import { StreamFraming, type StreamForm } from '../../codecs/gemini/stream-form.js';
import type { SseFrame } from '../../drivers/sse-parser.js';
import type { FrameData } from '../../drivers/sse-splitter.js';
import type { GatewayError } from '../../errors.js';
import type { RequestRecord } from '../../observability/request-record.js';
import type { GeminiResponse } from '../../protocols/gemini/response.js';
import type { Relay } from './relay.js';
import { geminiUsage } from './usage-taps.js';

export class GeminiRelay implements Relay {
  finished = false;
  private readonly framing: StreamFraming;

  constructor(
    private readonly rec: RequestRecord,
    form: StreamForm,
    /** The driver's classification of a failure chunk's data. */
    private readonly classify: (data: string) => GatewayError,
    /** Masks secrets in failure text bound for the caller (the upstream may quote a key). */
    private readonly mask: (text: string) => string = (text) => text,
  ) {
    this.framing = new StreamFraming(form);
  }

  earlyError(frame: SseFrame): GatewayError | undefined {
    return isErrorChunk(frame.data) ? this.classify(frame.data) : undefined;
  }

  frame(frame: SseFrame): string {
    return this.tap(frame.event ?? 'message', { text: () => frame.data }) ?? this.framing.chunk(frame.data);
  }

  tap(_event: string, data: FrameData): string | undefined {
    const text = data.text();
    if (this.rec.tFirstToken === 0) this.rec.tFirstToken = performance.now();
    if (isErrorChunk(text)) {
      this.rec.errorKind = this.classify(text).kind;
      this.finished = true;
      return this.framing.last(this.mask(text));
    }
    if (text.includes('"finishReason"')) {
      const obj = safeParse(text);
      const candidate = obj?.candidates?.[0];
      if (typeof candidate?.finishReason === 'string') {
        this.rec.finishReason = candidate.finishReason;
        this.finished = true;
      }
      if (obj?.usageMetadata) this.rec.usage = geminiUsage(obj.usageMetadata);
    }
    return this.framing.chunk(text);
  }

  endFrames(): string {
    return this.framing.close();
  }

  closingFrames(err: GatewayError): string {
    this.finished = true;
    const safe = maskedForCaller(err, this.mask);
    return this.framing.last(errorBodyJson(safe.kind, safe.message));
  }

  result(text: string, obj: Record<string, unknown>): string {
    const answer = obj as GeminiResponse;
    if (answer.usageMetadata) this.rec.usage = geminiUsage(answer.usageMetadata);
    const reason = answer.candidates?.[0]?.finishReason;
    this.rec.finishReason = typeof reason === 'string' ? reason : undefined;
    return text;
  }
}

function isErrorChunk(data: string): boolean {
  return data.startsWith('{"error"') || (data.includes('"error"') && safeParse(data)?.error != null);
}

function safeParse(data: string): GeminiResponse | undefined {
  try {
    return JSON.parse(data) as GeminiResponse;
  } catch {
    return undefined;
  }
}
