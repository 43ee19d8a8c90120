import { describe, expect, it } from 'vitest';
import type { Turn } from '../../../src/ir/types.js';
import type { OutputPart } from '../../../src/ir/types.js';
import { inputItemsOf } from '../../../src/responses-store/input-items.js';
import { pageOf, ResponsesRepository, UnknownCursorError } from '../../../src/responses-store/responses-repository.js';
import type { AnswerRecord, WireItem } from '../../../src/responses-store/stored-response.js';
import { MemoryStateStore } from '../../../src/state/memory-store.js';

function record(id: string, owner: string, extra: Partial<AnswerRecord> & { input?: string } = {}): AnswerRecord {
  const { input = 'hello', ...rest } = extra;
  const answer = [{ type: 'text', text: 'hi there' }] as OutputPart[];
  const turns: Turn[] = [{ role: 'user', parts: [{ type: 'text', text: input }] }, { role: 'assistant', parts: answer }] as Turn[];
  const response = {
    id,
    object: 'response',
    created_at: 1_763_700_000,
    status: 'completed',
    model: 'via-messages',
    output: [
      { id: `msg_out_${id}`, type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'hi there', annotations: [] }] },
      { id: `fc_${id}`, type: 'function_call', call_id: 'call_1', name: 'lookup', arguments: '{"q":"x"}', status: 'completed' },
    ],
  };
  return {
    id,
    owner,
    createdAt: 1_763_700_000,
    responseJson: JSON.stringify(response),
    outputItemIds: response.output.map((o) => o.id),
    requestJson: JSON.stringify({ model: 'm', input }),
    previous: [],
    answer,
    turns,
    ...rest,
  };
}

/** What load gives back of a saved record. */
function loaded(r: AnswerRecord) {
  return { id: r.id, owner: r.owner, createdAt: r.createdAt, producer: r.producer, response: JSON.parse(r.responseJson!.toString()) as unknown, turns: r.turns };
}

describe('ResponsesRepository', () => {
  it('saves and loads a record exactly, for its owner only', async () => {
    const repo = new ResponsesRepository(new MemoryStateStore(), { ttlMs: 60_000 });
    const r = record('resp_1', 'alice');
    await repo.save(r);
    const back = await repo.load('resp_1', 'alice');
    expect(back).toMatchObject(loaded(r));
    expect(back!.inputItems).toEqual([{ id: expect.stringMatching(/^msg_[0-9a-f]{24}$/), type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hello' }] }]);
    expect(await repo.loadConversation('resp_1', 'alice')).toEqual({ id: 'resp_1', owner: 'alice', createdAt: r.createdAt, turns: r.turns });
    expect(await repo.load('resp_1', 'bob')).toBeUndefined();
    expect(await repo.load('resp_missing', 'alice')).toBeUndefined();
  });

  it('resolves stored output items by id for item_reference, owner-isolated', async () => {
    const repo = new ResponsesRepository(new MemoryStateStore(), { ttlMs: 60_000 });
    await repo.save(record('resp_2', 'alice'));
    expect(await repo.getItem('fc_resp_2', 'alice')).toMatchObject({ type: 'function_call', name: 'lookup', arguments: '{"q":"x"}' });
    expect(await repo.getItem('fc_resp_2', 'bob')).toBeUndefined();
    expect(await repo.getItem('fc_unknown', 'alice')).toBeUndefined();
    // An item pointer's key is not a response id.
    expect(await repo.load('item:fc_resp_2', 'alice')).toBeUndefined();
  });

  it('deletes the record and its item pointers, and only for the owner', async () => {
    const repo = new ResponsesRepository(new MemoryStateStore(), { ttlMs: 60_000 });
    await repo.save(record('resp_3', 'alice'));
    expect(await repo.delete('resp_3', 'bob')).toBe(false);
    expect(await repo.load('resp_3', 'alice')).toBeDefined();
    expect(await repo.delete('resp_3', 'alice')).toBe(true);
    expect(await repo.load('resp_3', 'alice')).toBeUndefined();
    expect(await repo.getItem('fc_resp_3', 'alice')).toBeUndefined();
    expect(await repo.delete('resp_3', 'alice')).toBe(false);
  });

  it('expires with the configured TTL and respects the namespace byte bound', async () => {
    let now = 1_000_000;
    const store = new MemoryStateStore({ now: () => now, namespaces: [{ name: 'responses', maxBytes: 4000 }] });
    const repo = new ResponsesRepository(store, { ttlMs: 1000 });
    await repo.save(record('resp_old', 'alice'));
    now += 500;
    // Large enough that two records do not fit: the older one goes.
    const big = record('resp_big', 'alice', { input: 'x'.repeat(3000) });
    await repo.save(big);
    expect(await repo.load('resp_old', 'alice')).toBeUndefined();
    expect(await repo.load('resp_big', 'alice')).toBeDefined();
    now += 1000;
    expect(await repo.load('resp_big', 'alice')).toBeUndefined();
  });

  it('stores nothing when max_bytes is 0, but still claims the response and item ids', async () => {
    const repo = new ResponsesRepository(new MemoryStateStore(), { ttlMs: 60_000, maxBytes: 0 });
    expect(repo.enabled).toBe(false);
    await repo.save(record('resp_off', 'alice'));
    expect(await repo.load('resp_off', 'alice')).toBeUndefined();
    expect(await repo.responseOwner('resp_off')).toBe('alice');
    expect(await repo.itemOwners(['msg_out_resp_off', 'fc_resp_off', 'fc_other'])).toEqual(['alice', 'alice', undefined]);
  });

  it('claims outlive the record: its TTL, a delete (tombstone); they expire after claimTtlMs', async () => {
    let now = 1_000_000;
    const repo = new ResponsesRepository(new MemoryStateStore({ now: () => now }), { ttlMs: 1000, claimTtlMs: 10_000 });
    await repo.save(record('resp_t', 'alice'));
    await repo.save(record('resp_d', 'alice'));
    expect(await repo.delete('resp_d', 'alice')).toBe(true);
    now += 2000;
    expect(await repo.load('resp_t', 'alice')).toBeUndefined();
    expect(await repo.responseOwner('resp_t')).toBe('alice');
    expect(await repo.responseOwner('resp_d')).toBe('alice');
    expect(await repo.itemOwners(['fc_resp_d'])).toEqual(['alice']);
    now += 10_000;
    expect(await repo.responseOwner('resp_t')).toBeUndefined();
  });

  it('finds items through their entries (one record read for several items), and from entries of the earlier layout', async () => {
    const store = new MemoryStateStore();
    const repo = new ResponsesRepository(store, { ttlMs: 60_000 });
    const r = record('resp_new', 'alice', { producer: { provider: 'p', model: 'm', protocol: 'responses' } });
    await repo.save(r);
    const output = (JSON.parse(r.responseJson!.toString()) as { output: WireItem[] }).output;
    let reads = 0;
    const getDoc = store.getDoc.bind(store);
    store.getDoc = (ns, id, owner) => {
      if (id === 'resp_new') reads++;
      return getDoc(ns, id, owner);
    };
    const found = await repo.findItems(['fc_resp_new', 'nope', 'msg_out_resp_new'], 'alice');
    expect(found).toEqual([{ item: output[1], producer: r.producer }, undefined, { item: output[0], producer: r.producer }]);
    expect(reads).toBe(1);
    // The previous layout: `item:<id>` held the item's own JSON and its producer.
    await store.putDoc('responses', 'item:fc_old', 'alice', Buffer.from(JSON.stringify({ r: 'resp_old', p: r.producer, i: { ...output[1], id: 'fc_old' } })), 60_000);
    expect(await repo.findItems(['fc_old'], 'alice')).toEqual([{ item: { ...output[1], id: 'fc_old' }, producer: r.producer }]);
    expect(await repo.findItems(['fc_resp_new', 'fc_old'], 'bob')).toEqual([undefined, undefined]);
  });

  it("the gateway's own item ids (`<kind>_<stem>_<n>`) need no entry and no claim of their own: the record and its claim answer for them", async () => {
    const store = new MemoryStateStore();
    const repo = new ResponsesRepository(store, { ttlMs: 60_000 });
    const output = [
      { id: 'msg_Ab12_0', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'hi', annotations: [] }] },
      { id: 'fc_Ab12_1', type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{}', status: 'completed' },
      { id: 'fc_upstream9', type: 'function_call', call_id: 'call_2', name: 'g', arguments: '{}', status: 'completed' },
    ];
    const r = record('resp_Ab12', 'alice', { responseJson: JSON.stringify({ id: 'resp_Ab12', output }), outputItemIds: output.map((o) => o.id) });
    const puts: string[] = [];
    const claims: string[] = [];
    const putDoc = store.putDoc.bind(store);
    store.putDoc = (ns, id, ...rest) => (puts.push(id), putDoc(ns, id, ...rest));
    const claim = store.claim.bind(store);
    store.claim = (ns, ids, ...rest) => (claims.push(...ids), claim(ns, ids, ...rest));
    await repo.save(r);
    expect(puts).toEqual(['resp_Ab12', 'item:fc_upstream9']);
    expect(claims).toEqual(['r:resp_Ab12', 'i:fc_upstream9']);
    expect(await repo.itemOwners(['msg_Ab12_0', 'fc_Ab12_1', 'fc_upstream9', 'msg_Zz_0'])).toEqual(['alice', 'alice', 'alice', undefined]);
    expect((await repo.findItems(['fc_Ab12_1', 'msg_Ab12_0', 'fc_upstream9', 'fc_Ab12_7'], 'alice')).map((f) => f?.item.id)).toEqual(['fc_Ab12_1', 'msg_Ab12_0', 'fc_upstream9', undefined]);
    expect(await repo.findItems(['fc_Ab12_1'], 'bob')).toEqual([undefined]);
    expect(await repo.delete('resp_Ab12', 'alice')).toBe(true);
    expect(await repo.findItems(['fc_Ab12_1', 'fc_upstream9'], 'alice')).toEqual([undefined, undefined]);
    expect(await repo.itemOwners(['fc_Ab12_1', 'fc_upstream9'])).toEqual(['alice', 'alice']);
    // An entry of the previous layout (the item's own JSON) still answers after its record is gone.
    await putDoc('responses', 'item:fc_Ab12_1', 'alice', Buffer.from(JSON.stringify({ r: 'resp_Ab12', i: output[1] })), 60_000);
    expect((await repo.findItems(['fc_Ab12_1'], 'alice'))[0]?.item).toEqual(output[1]);
  });

  it('refuses a record larger than the whole bound with a RangeError the caller can log', async () => {
    const store = new MemoryStateStore({ namespaces: [{ name: 'responses', maxBytes: 500 }] });
    const repo = new ResponsesRepository(store, { ttlMs: 1000 });
    await expect(repo.save(record('resp_huge', 'alice'))).rejects.toBeInstanceOf(RangeError);
  });
});

describe('input items', () => {
  it('gives a string input one user message with an id, and ids to items without one', () => {
    let n = 0;
    const idFor = (type: string | undefined, index: number) => `${type === 'message' ? 'msg' : 'item'}_${index}_${n++}`;
    const [only] = inputItemsOf('hi', idFor);
    expect(only).toMatchObject({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] });
    expect(only!.id).toBe('msg_0_0');
    const items = inputItemsOf([
      { role: 'user', content: 'plain' },
      { id: 'fco_keep', type: 'function_call_output', call_id: 'c1', output: '42' },
      { type: 'function_call_output', call_id: 'c2', output: '43' },
    ], idFor);
    expect(items[0]).toMatchObject({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'plain' }] });
    expect(items[0]!.id).toBe('msg_0_1');
    expect(items[2]!.id).toBe('item_2_2');
    expect(items[1]).toEqual({ id: 'fco_keep', type: 'function_call_output', call_id: 'c1', output: '42' });
  });
});

describe('input item pages (OpenAI cursor semantics)', () => {
  const items: WireItem[] = ['a', 'b', 'c', 'd', 'e'].map((id) => ({ id, type: 'message' }));
  const ids = (p: { data: WireItem[] }) => p.data.map((i) => i.id);

  it('defaults to newest first, 20 per page', () => {
    const p = pageOf(items, {});
    expect(ids(p)).toEqual(['e', 'd', 'c', 'b', 'a']);
    expect(p).toMatchObject({ object: 'list', first_id: 'e', last_id: 'a', has_more: false });
  });

  it('pages forward with after/limit in either order', () => {
    const first = pageOf(items, { order: 'asc', limit: 2 });
    expect(ids(first)).toEqual(['a', 'b']);
    expect(first.has_more).toBe(true);
    const second = pageOf(items, { order: 'asc', limit: 2, after: first.last_id! });
    expect(ids(second)).toEqual(['c', 'd']);
    const last = pageOf(items, { order: 'asc', limit: 2, after: second.last_id! });
    expect(ids(last)).toEqual(['e']);
    expect(last.has_more).toBe(false);
    expect(ids(pageOf(items, { order: 'desc', limit: 2, after: 'd' }))).toEqual(['c', 'b']);
  });

  it('before lists the items just ahead of the cursor; both cursors bound a range', () => {
    expect(ids(pageOf(items, { order: 'asc', before: 'd', limit: 2 }))).toEqual(['b', 'c']);
    expect(ids(pageOf(items, { order: 'asc', after: 'a', before: 'e' }))).toEqual(['b', 'c', 'd']);
    const empty = pageOf(items, { order: 'asc', after: 'e' });
    expect(empty).toEqual({ object: 'list', data: [], first_id: null, last_id: null, has_more: false });
  });

  it('names the unknown cursor', () => {
    expect(() => pageOf(items, { after: 'zz' })).toThrow(UnknownCursorError);
    expect(() => pageOf(items, { before: 'zz' })).toThrow(/before: no input item with id 'zz'/);
  });
});
