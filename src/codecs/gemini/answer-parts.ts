// What the result and stream encoders share (gemini.md §6, §8): the fixed JSON around a chunk's parts,
// the part texts, and where reasoning state goes. A thought summary becomes a `thought` part when the
// caller asked for thoughts (`includeThoughts`); the opaque state goes in `thoughtSignature` on the
// answer part that follows it, as Gemini 3 signs its calls, because that is the part clients send
// back (Gemini CLI keeps function-call parts and drops thought parts from its history). Google's own
// signature goes as it came; another family's state (an Anthropic thinking block, an OpenAI encrypted
// reasoning item) travels inside the gateway's envelope (ir/reasoning-envelope.ts), byte-exact.
import { encodeEnvelope } from '../../ir/reasoning-envelope.js';
import { toolInput } from '../../ir/tool-arguments.js';
import type { IrRequest, ReasoningCarry } from '../../ir/types.js';

/** The signature for a reasoning part's state; undefined when there is nothing to carry. */
export function signatureOf(carry: ReasoningCarry | undefined): string | undefined {
  if (carry === undefined) return undefined;
  if (carry.family === 'google') return carry.signature ?? undefined;
  return encodeEnvelope(carry);
}

/** Whether the caller asked to see thought summaries (`thinkingConfig.includeThoughts`). */
export function showsThoughts(req: IrRequest): boolean {
  return req.reasoning?.summary != null;
}

const SIG = ',"thoughtSignature":';

export function textPartJson(text: string, signature: string | undefined): string {
  return '{"text":' + JSON.stringify(text) + (signature === undefined ? '' : SIG + JSON.stringify(signature)) + '}';
}

export function thoughtPartJson(text: string): string {
  return '{"text":' + JSON.stringify(text) + ',"thought":true}';
}

export function callPartJson(id: string, name: string, args: string, signature: string | undefined): string {
  const call = '{"id":' + JSON.stringify(id) + ',"name":' + JSON.stringify(name) + ',"args":' + JSON.stringify(toolInput(args)) + '}';
  return '{"functionCall":' + call + (signature === undefined ? '' : SIG + JSON.stringify(signature)) + '}';
}

/** The JSON of a GenerateContentResponse around its parts: `head + parts + tail(...)`. */
export class ChunkShape {
  readonly head = '{"candidates":[{"content":{"parts":[';
  private readonly ids: string;

  constructor(model: string, responseId: string) {
    this.ids = ',"modelVersion":' + JSON.stringify(model) + ',"responseId":' + JSON.stringify(responseId) + '}';
  }

  /** A chunk in the middle of an answer. */
  partial(parts: string): string {
    return this.head + parts + '],"role":"model"},"index":0}]' + this.ids;
  }

  /** The last chunk (or a whole answer): its finish reason and usage. */
  final(parts: string, finishReason: string, usageJson: string): string {
    return this.head + parts + '],"role":"model"},"finishReason":"' + finishReason + '","index":0}],"usageMetadata":' + usageJson + this.ids;
  }
}
