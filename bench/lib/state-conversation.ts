// The `state` scenario: a two-turn Responses conversation through the gateway, one backend per gateway
// process (memory, file, redis on loopback). Each iteration sends
//   turn 1:  a question (stored),
//   inline:  the follow-up with the history written out in `input` (no lookup),
//   turn 2:  the same follow-up with `previous_response_id` (one state lookup, then the stored turns
//            spliced),
// on one connection, so turn 2 − inline is what the lookup and splice add to a request, measured on the
// same process in the same minute. Both follow-ups come after a pause (THINK_MS, a client reading the
// answer before it replies), so the saves of the answers before them (after their last byte, off the
// request's path) have landed: back to back, a save's commands on the shared Redis connection queue in
// front of the next lookup, which measures the save, not the lookup.
import { request } from 'undici';
import { ANSWER_TEXT, USER_TURN_1, USER_TURN_2 } from '../corpus.js';
import { requestHeaders } from '../request-bodies.js';

export interface ConversationResult {
  turn1Us: number[];
  turn2Us: number[];
  inlineUs: number[];
  /** A follow-up naming the stored answer by REFERENCES `item_reference`s, and the same items written out. */
  refsUs: number[];
  refsInlineUs: number[];
  failures: number;
  firstFailure?: string;
}

const headers = requestHeaders('responses');
/** References in the `refs` follow-up (issue 19: a request naming 50 items of one conversation). */
export const REFERENCES = 50;
const THINK_MS = 3;
const pause = () => new Promise((r) => setTimeout(r, THINK_MS));

async function post(origin: string, body: unknown): Promise<{ us: number; id?: string; itemId?: string; error?: string }> {
  const t0 = process.hrtime.bigint();
  try {
    const res = await request(origin + '/v1/responses', { method: 'POST', headers, body: JSON.stringify(body), headersTimeout: 15_000, bodyTimeout: 15_000 });
    const text = await res.body.text();
    const us = Number(process.hrtime.bigint() - t0) / 1000;
    if (res.statusCode !== 200) return { us, error: `HTTP ${res.statusCode} ${text.slice(0, 200)}` };
    const parsed = JSON.parse(text) as { id: string; output?: { id?: string }[] };
    return { us, id: parsed.id, itemId: parsed.output?.[0]?.id };
  } catch (err) {
    return { us: 0, error: (err as Error).message };
  }
}

/** Conversations one after another for `durationS` (at most `maxSamples`). */
export async function twoTurnConversations(origin: string, model: string, durationS: number, maxSamples: number): Promise<ConversationResult> {
  const out: ConversationResult = { turn1Us: [], turn2Us: [], inlineUs: [], refsUs: [], refsInlineUs: [], failures: 0 };
  const fail = (why: string) => {
    out.failures++;
    out.firstFailure ??= why;
  };
  const until = Date.now() + durationS * 1000;
  const question = [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: USER_TURN_1 }] }];
  const followUp = { role: 'user', content: USER_TURN_2 };
  while (Date.now() < until && out.turn2Us.length < maxSamples) {
    const t1 = await post(origin, { model, input: question, max_output_tokens: 1024 });
    if (!t1.id) {
      fail(`turn 1: ${t1.error}`);
      continue;
    }
    await pause();
    const inline = await post(origin, {
      model,
      input: [...question, { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: ANSWER_TEXT, annotations: [] }] }, followUp],
      max_output_tokens: 1024,
    });
    await pause();
    const t2 = await post(origin, { model, input: [followUp], previous_response_id: t1.id, max_output_tokens: 1024 });
    if (t2.error || inline.error) {
      fail(`turn 2: ${t2.error ?? inline.error}`);
      continue;
    }
    out.turn1Us.push(t1.us);
    out.turn2Us.push(t2.us);
    out.inlineUs.push(inline.us);
    // The Vercel AI SDK's way: earlier items sent back as references. Here the stored answer, REFERENCES
    // times (one distinct item: de-duplicated to one read), against the same items written out.
    if (t1.itemId === undefined) {
      fail('turn 1: no output item id');
      continue;
    }
    const answer = { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: ANSWER_TEXT, annotations: [] }] };
    await pause();
    const refsInline = await post(origin, { model, input: [...question, ...Array.from({ length: REFERENCES }, () => answer), followUp], max_output_tokens: 1024 });
    await pause();
    const refs = await post(origin, { model, input: [...question, ...Array.from({ length: REFERENCES }, () => ({ type: 'item_reference', id: t1.itemId })), followUp], max_output_tokens: 1024 });
    if (refs.error || refsInline.error) {
      fail(`references: ${refs.error ?? refsInline.error}`);
      continue;
    }
    out.refsUs.push(refs.us);
    out.refsInlineUs.push(refsInline.us);
  }
  return out;
}
