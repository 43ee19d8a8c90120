// What the Responses door keeps of a finished answer (responses-store/stored-response.ts), built after
// the caller's last byte by either lane: texts the request already has (its body as the caller sent
// it, the response as the caller got it), this answer's IR parts and the conversation as it stands in
// memory (for a continuation that arrives before the save lands), and the deployment that produced it.
import { callerJsonOf } from '../drivers/caller-json.js';
import type { OutputPart, Turn } from '../ir/types.js';
import type { RouteTarget } from '../router/model-table.js';
import type { AnswerRecord, Producer } from '../responses-store/stored-response.js';
import type { Generation } from './generation.js';

/** The Responses door keeps answers unless the caller said `store: false`. With storing off
 * (`max_bytes: 0`) the answer's ids are still claimed for its key (responses-repository.ts). */
export function keepsAnswer(gen: Generation): boolean {
  return gen.codec.protocol === 'responses' && gen.ir.extras.responses?.store !== false;
}

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
 * `responseJson`: the response as the caller got it (its text), stored as is. `answer`: the answer's IR
 * parts, or (a Responses upstream's response as it is) how to decode them: only a continuation that
 * arrives before the save lands does; the record leaves them out (stored-response.ts).
 */
export function storedAnswer(gen: Generation, target: RouteTarget, facts: ResponseFacts, answer: OutputPart[] | (() => OutputPart[]), responseJson: string): AnswerRecord {
  // The body decoded (references expanded): the caller's own text when the object is still that text's.
  const requestJson = callerJsonOf(gen.body)?.text ?? JSON.stringify(gen.body);
  const producer = { provider: target.provider.name, model: target.model, protocol: target.provider.protocol };
  return new SavedAnswer(facts, gen.caller.name, requestJson, responseJson, gen.previous?.turns ?? [], gen.ir.turns, answer, producer);
}

/** An answer being saved; its whole conversation is put together only if a continuation reads it first. */
class SavedAnswer implements AnswerRecord {
  readonly id: string;
  readonly createdAt: number;
  readonly outputItemIds: string[];
  readonly answer: OutputPart[] | undefined;
  private all: Turn[] | undefined;

  constructor(
    facts: ResponseFacts,
    readonly owner: string,
    readonly requestJson: string,
    readonly responseJson: string,
    readonly previous: Turn[],
    /** The request's turns (the previous conversation's first, when there was one). */
    private readonly asked: Turn[],
    private readonly parts: OutputPart[] | (() => OutputPart[]),
    readonly producer: Producer,
  ) {
    this.id = facts.id;
    this.createdAt = facts.createdAt;
    this.outputItemIds = facts.outputItemIds;
    this.answer = typeof parts === 'function' ? undefined : parts;
  }

  get turns(): Turn[] {
    const parts = this.parts;
    return (this.all ??= [...this.asked, { role: 'assistant', parts: typeof parts === 'function' ? parts() : parts }]);
  }
}

function outputItemIds(response: Record<string, unknown>): string[] {
  const output = response.output;
  const ids: string[] = [];
  if (!Array.isArray(output)) return ids;
  for (const item of output) if (item !== null && typeof item === 'object' && typeof (item as { id?: unknown }).id === 'string') ids.push((item as { id: string }).id);
  return ids;
}
