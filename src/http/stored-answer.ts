// What the Responses door keeps of a finished answer (responses-store/stored-response.ts), built after
// the caller's last byte by either lane: the response object as the caller got it, the request's input
// items, the whole conversation as IR turns, and the deployment that produced it.
import type { OutputPart } from '../ir/types.js';
import type { RouteTarget } from '../router/model-table.js';
import { inputItemsOf } from '../responses-store/input-items.js';
import type { StoredResponse } from '../responses-store/stored-response.js';
import type { Generation } from './generation.js';

/** The Responses door keeps answers unless the caller said `store: false`. With storing off
 * (`max_bytes: 0`) the answer's ids are still claimed for its key (responses-repository.ts). */
export function keepsAnswer(gen: Generation): boolean {
  return gen.codec.protocol === 'responses' && gen.ir.extras.responses?.store !== false;
}

/** `responseJson`: the response exactly as the caller got it (its text), stored without serialising it again. */
export function storedAnswer(gen: Generation, target: RouteTarget, response: Record<string, unknown>, answer: OutputPart[], responseJson?: string): StoredResponse {
  return {
    id: typeof response.id === 'string' ? response.id : gen.responseId,
    owner: gen.caller.name,
    createdAt: typeof response.created_at === 'number' ? response.created_at : gen.createdAt,
    response,
    responseJson,
    inputItems: inputItemsOf(gen.body.input),
    // gen.ir.turns already starts with the previous conversation when there was one.
    turns: [...gen.ir.turns, { role: 'assistant', parts: answer }],
    producer: { provider: target.provider.name, model: target.model, protocol: target.provider.protocol },
  };
}
