// What the Responses door keeps of a finished answer (responses-store/stored-response.ts), built after
// the caller's last byte by either lane: texts the request already has (its body as the caller sent
// it, the response as the caller got it), this answer's IR parts and the conversation as it stands in
// memory (for a continuation that arrives before the save lands), and the deployment that produced it.
import { callerJsonOf } from '../drivers/caller-json.js';
import type { OutputPart, Turn } from '../ir/types.js';
import type { RouteTarget } from '../router/model-table.js';
import type { AnswerRecord } from '../responses-store/stored-response.js';
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
  const previous = gen.previous?.turns ?? [];
  const before = gen.ir.turns;
  let turns: Turn[] | undefined;
  const record: AnswerRecord = {
    id: facts.id,
    owner: gen.caller.name,
    createdAt: facts.createdAt,
    responseJson,
    outputItemIds: facts.outputItemIds,
    // The body decoded (references expanded): the caller's own text when the object is still that text's.
    requestJson: callerJsonOf(gen.body)?.text ?? JSON.stringify(gen.body),
    previous,
    ...(typeof answer === 'function' ? {} : { answer }),
    turns: [],
    producer: { provider: target.provider.name, model: target.model, protocol: target.provider.protocol },
  };
  // gen.ir.turns already starts with the previous conversation when there was one.
  Object.defineProperty(record, 'turns', {
    enumerable: true,
    get: () => (turns ??= [...before, { role: 'assistant', parts: typeof answer === 'function' ? answer() : answer }]),
  });
  return record;
}

function outputItemIds(response: Record<string, unknown>): string[] {
  const output = response.output;
  const ids: string[] = [];
  if (!Array.isArray(output)) return ids;
  for (const item of output) if (item !== null && typeof item === 'object' && typeof (item as { id?: unknown }).id === 'string') ids.push((item as { id: string }).id);
  return ids;
}
