// The answer a lane hands to the store: its texts as they are, and the whole conversation put together
// only when a continuation reads the save still in flight (AnswerSaver.inFlight), parts decoded then.
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { AnswerSaver } from '../../../src/http/answer-saver.js';
import type { Generation } from '../../../src/http/generation.js';
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
const gen = {
  body,
  caller: { name: 'alice' },
  previous: { id: 'resp_prev', owner: 'alice', createdAt: 1, turns: earlier },
  ir: { turns: [...earlier, { role: 'user', parts: [{ type: 'text', text: 'second' }] }] },
} as unknown as Generation;
const target = { provider: { name: 'p', protocol: 'responses' }, model: 'up-model' } as unknown as RouteTarget;
const facts = { id: 'resp_new', createdAt: 2, outputItemIds: ['msg_new_0'] };
const parts: OutputPart[] = [{ type: 'text', text: 'second answer' }];
const whole = [...(gen.ir.turns as Turn[]), { role: 'assistant', parts }];

describe('storedAnswer', () => {
  it('keeps the texts and the earlier turns; the record reads back as the whole conversation', () => {
    const r = storedAnswer(gen, target, facts, parts, '{"id":"resp_new","output":[]}');
    expect(r).toMatchObject({ id: 'resp_new', owner: 'alice', createdAt: 2, previous: earlier, answer: parts, requestJson: JSON.stringify(body), producer: { provider: 'p', model: 'up-model', protocol: 'responses' } });
    expect(r.turns).toEqual(whole);
    expect(decodeStoredConversation(encodeAnswerRecord(r))!.turns).toEqual(whole);
  });

  it('parts still to decode (pass-through): left out of the record, decoded only when the turns are read', () => {
    let decoded = 0;
    const r = storedAnswer(gen, target, facts, () => (decoded++, parts), '{}');
    expect(r.answer).toBeUndefined();
    encodeAnswerRecord(r);
    expect(decoded).toBe(0);
    expect(r.turns).toEqual(whole);
    expect(r.turns).toBe(r.turns);
    expect(decoded).toBe(1);
  });

  it('a continuation that outruns the save reads the record in flight, conversation whole', async () => {
    let land!: () => void;
    const saved: AnswerRecord[] = [];
    const repo = { save: (r: AnswerRecord) => (saved.push(r), new Promise<void>((resolve) => (land = resolve))) } as unknown as ResponsesRepository;
    const saver = new AnswerSaver(repo, pino({ level: 'silent' }), {} as Observability);
    const res = Object.assign(new EventEmitter(), { writableEnded: true, writableFinished: true }) as unknown as ServerResponse;
    saver.saveAfter(res, 'resp_new', 'req_1', () => storedAnswer(gen, target, facts, () => parts, '{}'));
    expect(saver.inFlight('resp_new')?.record).toBeUndefined(); // built after this turn's I/O
    await new Promise((resolve) => setImmediate(resolve));
    expect(saver.inFlight('resp_new')!.record!.turns).toEqual(whole);
    land();
    await saver.idle();
    expect(saver.inFlight('resp_new')).toBeUndefined();
    expect(saved).toHaveLength(1);
  });
});
