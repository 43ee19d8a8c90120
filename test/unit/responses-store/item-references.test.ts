import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/errors.js';
import { assertResolvedFor, expandItemReferences } from '../../../src/responses-store/expand-item-references.js';
import { isItemReference, MAX_ITEM_REFERENCES, referenceIndexes } from '../../../src/responses-store/resolve-item-references.js';
import { ResponsesRepository } from '../../../src/responses-store/responses-repository.js';
import type { AnswerRecord } from '../../../src/responses-store/stored-response.js';
import { MemoryStateStore } from '../../../src/state/memory-store.js';
import { StateUnavailableError } from '../../../src/state/types.js';

const msg = { id: 'msg_a_0', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'hi', annotations: [] }] };
const call = { id: 'fc_a_1', type: 'function_call', status: 'completed', call_id: 'call_1', name: 'f', arguments: '{}' };

describe('isItemReference', () => {
  it('the typed and the bare form; messages without type are not references', () => {
    expect(isItemReference({ type: 'item_reference', id: 'x' })).toBe(true);
    expect(isItemReference({ id: 'x' })).toBe(true);
    expect(isItemReference({ id: 'x', type: null })).toBe(true);
    expect(isItemReference({ role: 'user', content: 'a', id: 'x' })).toBe(false);
    expect(isItemReference({ type: 'message', id: 'x', role: 'assistant', content: [] })).toBe(false);
    expect(isItemReference({ type: 'item_reference' })).toBe(false);
    expect(isItemReference('x')).toBe(false);
  });
});

describe('referenceIndexes', () => {
  it('indexes of the references; undefined without any', () => {
    expect(referenceIndexes([{ role: 'user', content: 'a' }, { id: 'x' }, { type: 'item_reference', id: 'y' }])).toEqual([1, 2]);
    expect(referenceIndexes([{ role: 'user', content: 'a' }])).toBeUndefined();
    expect(referenceIndexes('text')).toBeUndefined();
  });

  it(`more than ${MAX_ITEM_REFERENCES} references: a 400 naming input, before any lookup`, () => {
    const input = Array.from({ length: MAX_ITEM_REFERENCES + 1 }, () => ({ id: 'msg_x' }));
    expect(() => referenceIndexes(input)).toThrow(expect.objectContaining({ kind: 'invalid_request', param: 'input' }));
    expect(referenceIndexes(input.slice(1))).toHaveLength(MAX_ITEM_REFERENCES);
  });
});

describe('expandItemReferences', () => {
  const repo = new ResponsesRepository(new MemoryStateStore(), { ttlMs: 60_000 });
  const record: AnswerRecord = {
    id: 'resp_a',
    owner: 'alice',
    createdAt: 0,
    responseJson: JSON.stringify({ id: 'resp_a', output: [msg, call] }),
    outputItemIds: [msg.id, call.id],
    requestJson: '{"model":"m","input":"hi"}',
    previous: [],
    answer: [],
    turns: [],
  };
  const saved = repo.save(record);
  const source = (seen: string[][] = []) => ({
    findItems: async (ids: readonly string[], owner: string) => {
      seen.push([...ids]);
      return (await repo.findItems(ids, owner)).map((f) => f?.item);
    },
    itemOwners: (ids: readonly string[]) => repo.itemOwners(ids),
  });

  it('other doors and bodies without references come back as they are', async () => {
    await saved;
    const body = { model: 'm', input: [{ role: 'user', content: 'a' }] };
    expect(await expandItemReferences('responses', body, false, source(), 'alice')).toBe(body);
    const refs = { model: 'm', messages: [], input: [{ id: 'x' }] };
    expect(await expandItemReferences('messages', refs, false, source(), 'alice')).toBe(refs);
  });

  it('replaces each reference in place, reading each distinct id once; the caller array untouched', async () => {
    await saved;
    const input = [{ role: 'user', content: 'a' }, { type: 'item_reference', id: 'msg_a_0' }, { id: 'fc_a_1' }, { id: 'msg_a_0' }];
    const copy = structuredClone(input);
    const seen: string[][] = [];
    const out = await expandItemReferences('responses', { model: 'm', input }, false, source(seen), 'alice');
    expect(out.input).toEqual([input[0], msg, call, msg]);
    expect(seen).toEqual([['msg_a_0', 'fc_a_1']]);
    expect(input).toEqual(copy);
  });

  it('a plan that cannot forward: an unknown id and another key\'s get the same 400 naming input[i]', async () => {
    await saved;
    const body = { model: 'm', input: [{ type: 'item_reference', id: 'msg_a_0' }, { type: 'item_reference', id: 'msg_vendor' }] };
    const unknown = (await expandItemReferences('responses', body, false, source(), 'alice').catch((e: unknown) => e)) as GatewayError;
    expect(unknown).toMatchObject({ kind: 'invalid_request', param: 'input[1]', message: "Item with id 'msg_vendor' not found (input[1])." });
    const anothers = (await expandItemReferences('responses', body, false, source(), 'bob').catch((e: unknown) => e)) as GatewayError;
    expect(anothers).toMatchObject({ kind: 'invalid_request', param: 'input[0]', message: "Item with id 'msg_a_0' not found (input[0])." });
  });

  it('a plan that forwards keeps unclaimed ids for OpenAI, refuses another key\'s claimed ones as OpenAI refuses unknown items', async () => {
    await saved;
    const body = { model: 'm', input: [{ type: 'item_reference', id: 'msg_a_0' }, { type: 'item_reference', id: 'msg_vendor' }] };
    expect((await expandItemReferences('responses', body, true, source(), 'alice')).input).toEqual([msg, body.input[1]]);
    const err = (await expandItemReferences('responses', body, true, source(), 'bob').catch((e: unknown) => e)) as GatewayError;
    expect(err).toMatchObject({ kind: 'not_found', param: 'input', message: "Item with id 'msg_a_0' not found." });
    // Claims outlive the stored items: deleting the response keeps them bob-proof.
    const own = new ResponsesRepository(new MemoryStateStore(), { ttlMs: 60_000 });
    await own.save({ ...record, id: 'resp_b' });
    await own.delete('resp_b', 'alice');
    expect(await own.itemOwners(['msg_a_0', 'fc_a_1', 'nobody'])).toEqual(['alice', 'alice', undefined]);
  });

  it('the state store away: StateUnavailableError (a 503) whatever the plan: nothing is forwarded unchecked', async () => {
    const down = {
      findItems: () => Promise.reject(new StateUnavailableError('get', 'state store unavailable (test)')),
      itemOwners: () => Promise.reject(new StateUnavailableError('get', 'state store unavailable (test)')),
    };
    const body = { model: 'm', input: [{ type: 'item_reference', id: 'msg_a_0' }] };
    await expect(expandItemReferences('responses', body, true, down, 'alice')).rejects.toBeInstanceOf(StateUnavailableError);
    await expect(expandItemReferences('responses', body, false, down, 'alice')).rejects.toBeInstanceOf(StateUnavailableError);
  });

  it('assertResolvedFor: a kept reference stops an attempt on another protocol, naming it and the provider', () => {
    const kept = { model: 'm', input: [{ role: 'user', content: 'a' }, msg, { type: 'item_reference', id: 'rs_vendor' }] };
    let err: GatewayError | undefined;
    try {
      assertResolvedFor('responses', kept, 'anthropic-main');
    } catch (e) {
      err = e as GatewayError;
    }
    expect(err).toBeInstanceOf(GatewayError);
    expect(err!.param).toBe('input[2]');
    expect(err!.message).toContain("'rs_vendor'");
    expect(err!.message).toContain('anthropic-main');
    expect(() => assertResolvedFor('responses', { model: 'm', input: [msg] }, 'x')).not.toThrow();
    expect(() => assertResolvedFor('messages', kept, 'x')).not.toThrow();
  });
});
