// What the Responses door keeps of a finished answer (responses-store/stored-response.ts), built after
// the caller's last byte by either lane: texts the request already has (its body as the caller sent
// it; a Responses upstream's response as the caller got it), this answer's IR parts (a translated
// answer's: its response is rendered again from them when read), the earlier turns, and the deployment
// that produced it.
import type { IrResult, OutputPart, TextPart, Turn } from '../ir/types.js';
import type { RouteTarget } from '../router/model-table.js';
import { conversationOfTexts, type AnswerRecord, type Producer, type RenderFacts } from '../responses-store/stored-response.js';
import type { Generation } from './generation.js';

/** What the store needs of the response object: its id, its creation time and its output items' ids. */
export interface ResponseFacts {
  id: string;
  createdAt: number;
  outputItemIds: string[];
}

/** The facts of a response object the lane has parsed (pass-through). */
export function factsOf(gen: Generation, response: Record<string, unknown>): ResponseFacts {
  return {
    id: typeof response.id === 'string' ? response.id : gen.responseId,
    createdAt: typeof response.created_at === 'number' ? response.created_at : gen.createdAt,
    outputItemIds: outputItemIds(response),
  };
}

/**
 * `responseJson`: the response as the caller got it (its text, or the bytes sent), stored as is. `answer`: the answer's IR
 * parts, or none for a Responses upstream's response as it is: they are decoded from the response when
 * read (stored-response.ts), as for a record being saved that a continuation reads first.
 */
export function storedAnswer(gen: Generation, target: RouteTarget, facts: ResponseFacts, answer: OutputPart[] | undefined, responseJson: string | Buffer): AnswerRecord {
  return new SavedAnswer(facts, gen.caller.name, gen.requestText(), responseJson, undefined, gen.previous?.turns ?? [], gen.previous?.system ?? [], answer, producerOf(target));
}

/**
 * A translated answer (the gateway rendered its response from the IR): its parts, finish and usage,
 * and the `completed_at` the caller got; the response text is not kept (rendered again when read).
 */
export function renderedAnswer(gen: Generation, target: RouteTarget, facts: ResponseFacts, result: IrResult, completedAt: number): AnswerRecord {
  const rendered: RenderFacts = { finish: result.finish, usage: result.usage, completedAt };
  return new SavedAnswer(facts, gen.caller.name, gen.requestText(), undefined, rendered, gen.previous?.turns ?? [], gen.previous?.system ?? [], result.content, producerOf(target));
}

function producerOf(target: RouteTarget): Producer {
  return { provider: target.provider.name, model: target.model, protocol: target.provider.protocol };
}

/** An answer being saved; its whole conversation is derived from its texts, as a stored record's, only
 * if a continuation reads it before the save lands (a stream no longer holds its request's objects). */
class SavedAnswer implements AnswerRecord {
  readonly id: string;
  readonly createdAt: number;
  readonly outputItemIds: string[];
  private all: { turns: Turn[]; system: TextPart[] } | undefined;

  constructor(
    facts: ResponseFacts,
    readonly owner: string,
    readonly requestJson: string,
    readonly responseJson: string | Buffer | undefined,
    readonly rendered: RenderFacts | undefined,
    readonly previous: Turn[],
    private readonly previousSystem: readonly TextPart[],
    readonly answer: OutputPart[] | undefined,
    readonly producer: Producer,
  ) {
    this.id = facts.id;
    this.createdAt = facts.createdAt;
    this.outputItemIds = facts.outputItemIds;
  }

  get turns(): Turn[] {
    return this.conversation().turns;
  }

  get system(): TextPart[] {
    return this.conversation().system;
  }

  private conversation(): { turns: Turn[]; system: TextPart[] } {
    return (this.all ??= conversationOfTexts(this.previous, this.previousSystem, this.requestJson, this.answer ?? null, () => String(this.responseJson)));
  }
}

function outputItemIds(response: Record<string, unknown>): string[] {
  const output = response.output;
  const ids: string[] = [];
  if (!Array.isArray(output)) return ids;
  for (const item of output) if (item !== null && typeof item === 'object' && typeof (item as { id?: unknown }).id === 'string') ids.push((item as { id: string }).id);
  return ids;
}
