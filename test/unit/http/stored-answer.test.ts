// The answer a lane hands to the store: its texts as they are, and the whole conversation derived from
// them (as a stored record's) only when a continuation reads the save still in flight (AnswerSaver.inFlight).
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { AnswerSaver } from '../../../src/http/answer-saver.js';
import { Generation, type GenerationInit } from '../../../src/http/generation.js';
import { storedAnswer } from '../../../src/http/stored-answer.js';
import type { OutputPart, Turn } from '../../../src/ir/types.js';
import type { Observability } from '../../../src/observability/observer.js';
import type { ResponsesRepository } from '../../../src/responses-store/responses-repository.js';
import { decodeStoredConversation, encodeAnswerRecord, type AnswerRecord } from '../../../src/responses-store/stored-response.js';
import type { RouteTarget } from '../../../src/router/model-table.js';

const earlier: Turn[] = [
  { role: 'user', parts: [{ type: 'text', text: 'first' }] },
  { role: 'assistant', parts: [{ type: 'text', text: 'first answer' }] },
];
const body = { model: 'm', previous_response_id: 'resp_prev', input: 'second' };
const turns: Turn[] = [...earlier, { role: 'user', parts: [{ type: 'text', text: 'second' }] }];
function generation(): Generation {
  return new Generation(
    {
      body,
      codec: { protocol: 'responses' },
      caller: { name: 'alice' },
      request: { body },
      previous: { id: 'resp_prev', owner: 'alice', createdAt: 1, turns: earlier },
      ir: { turns, extras: {} },
      warnings: [],
    } as unknown as GenerationInit,
    'resp_new',
  );
}
const gen = generation();
const target = { provider: { name: 'p', protocol: 'responses' }, model: 'up-model' } as unknown as RouteTarget;
const facts = { id: 'resp_new', createdAt: 2, outputItemIds: ['msg_new_0'] };
const parts: OutputPart[] = [{ type: 'text', text: 'second answer' }];
const RESPONSE = JSON.stringify({
  id: 'resp_new',
  object: 'response',
  status: 'completed',
  output: [{ type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'second answer', annotations: [] }] }],
});
const whole = [...turns, { role: 'assistant', parts }];

describe('storedAnswer', () => {
  it('keeps the texts and the earlier turns; the record reads back as the whole conversation', () => {
    const r = storedAnswer(gen, target, facts, parts, '{"id":"resp_new","output":[]}');
    expect(r).toMatchObject({ id: 'resp_new', owner: 'alice', createdAt: 2, previous: earlier, answer: parts, requestJson: JSON.stringify(body), producer: { provider: 'p', model: 'up-model', protocol: 'responses' } });
    expect(r.turns).toEqual(whole);
    expect(decodeStoredConversation(encodeAnswerRecord(r))!.turns).toEqual(whole);
  });

  it('no parts (pass-through): none stored, decoded from the response text only when the turns are read', () => {
    const r = storedAnswer(gen, target, facts, undefined, RESPONSE);
    expect(r.answer).toBeUndefined();
    expect(decodeStoredConversation(encodeAnswerRecord(r))!.turns).toEqual(whole);
    expect(r.turns).toEqual(whole);
    expect(r.turns).toBe(r.turns);
  });

  it('a stream that let its body go: the record keeps the text taken then, and reads back whole', () => {
    const released = generation();
    released.releaseRequest();
    expect(released.body).toEqual({});
    expect(released.ir.turns).toEqual([]);
    const r = storedAnswer(released, target, facts, parts, RESPONSE);
    expect(r.requestJson).toBe(JSON.stringify(body));
    expect(r.turns).toEqual(whole);
    expect(decodeStoredConversation(encodeAnswerRecord(r))!.turns).toEqual(whole);
  });

  it('a continuation that outruns the save reads the record in flight, conversation whole', async () => {
    let land!: () => void;
    const saved: AnswerRecord[] = [];
    const repo = { save: (r: AnswerRecord) => (saved.push(r), new Promise<void>((resolve) => (land = resolve))) } as unknown as ResponsesRepository;
    const saver = new AnswerSaver(repo, pino({ level: 'silent' }), {} as Observability);
    const res = Object.assign(new EventEmitter(), { writableEnded: true, writableFinished: true }) as unknown as ServerResponse;
    saver.saveAfter(res, 'resp_new', 'req_1', () => storedAnswer(gen, target, facts, undefined, RESPONSE));
    expect(saver.inFlight('resp_new')?.record).toBeUndefined(); // built after this turn's I/O
    await new Promise((resolve) => setImmediate(resolve));
    expect(saver.inFlight('resp_new')!.record!.turns).toEqual(whole);
    land();
    await saver.idle();
    expect(saver.inFlight('resp_new')).toBeUndefined();
    expect(saved).toHaveLength(1);
  });
});
