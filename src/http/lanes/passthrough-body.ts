// The body a Responses pass-through attempt forwards when the caller continues a stored conversation.
// The OpenAI deployment that produced the previous answer keeps its own state: the id goes as it is
// (splicing would bill the history twice and lose what OpenAI keeps that we do not). Any other
// Responses deployment never saw it: the stored conversation is inlined in front of `input` and the id
// dropped, so that deployment gets the whole history in one request.
import { encodeInput } from '../../drivers/openai-responses/encode-input.js';
import type { RouteTarget } from '../../router/model-table.js';
import type { StoredConversation } from '../../responses-store/stored-response.js';
import { sameDeployment } from '../referenced-items.js';

export function producedBy(previous: StoredConversation, target: RouteTarget): boolean {
  return previous.producer !== undefined && sameDeployment(previous.producer, target);
}

/**
 * `body` unchanged when there is nothing to splice or the target produced the previous answer;
 * otherwise a shallow copy with the stored turns as input items. `storedTurns` are the previous
 * conversation only (not this request's input, which the body still carries).
 */
export function continuationBody(body: Record<string, unknown>, previous: StoredConversation | undefined, target: RouteTarget): Record<string, unknown> {
  if (!previous || producedBy(previous, target)) return body;
  // The earlier system/developer messages as OpenAI would have kept them; the caller's input answers
  // the history's last calls, so none is closed here.
  const system = (previous.system ?? []).map((p) => ({ type: 'message', role: 'developer', content: [{ type: 'input_text', text: p.text }] }));
  const history = [...system, ...encodeInput(previous.turns, 'responses', [], { moreInputFollows: true })];
  const input = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : Array.isArray(body.input) ? body.input : [];
  const { previous_response_id: _dropped, ...rest } = body;
  return { ...rest, input: [...history, ...input] };
}
