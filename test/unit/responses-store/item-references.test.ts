import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/errors.js';
import { assertResolvedFor, expandItemReferences } from '../../../src/responses-store/expand-item-references.js';
import { isItemReference, resolveItemReferences } from '../../../src/responses-store/resolve-item-references.js';
import { ResponsesRepository } from '../../../src/responses-store/responses-repository.js';
import type { StoredResponse } from '../../../src/responses-store/stored-response.js';
import { MemoryStateStore } from '../../../src/state/memory-store.js';
import { StateUnavailableError } from '../../../src/state/types.js';
import type { RoutePlan } from '../../../src/router/model-table.js';

const msg = { id: 'msg_a_0', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'hi', annotations: [] }] };
const call = { id: 'fc_a_1', type: 'function_call', status: 'completed', call_id: 'call_1', name: 'f', arguments: '{}' };

function lookupOf(items: Record<string, Record<string, unknown>>, seen: string[] = []) {
  return async (id: string) => {
    seen.push(id);
    return items[id];
  };
}

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

describe('resolveItemReferences', () => {
  it('no references: undefined (the caller keeps its array) and no lookups', async () => {
    const seen: string[] = [];
    expect(await resolveItemReferences([{ role: 'user', content: 'a' }], lookupOf({}, seen), false)).toBeUndefined();
    expect(await resolveItemReferences('text', lookupOf({}, seen), false)).toBeUndefined();
    expect(seen).toEqual([]);
  });

  it('replaces each reference in place with the stored item, the caller array untouched', async () => {
    const input = [{ role: 'user', content: 'a' }, { type: 'item_reference', id: 'msg_a_0' }, { id: 'fc_a_1' }, { type: 'function_call_output', call_id: 'call_1', output: 'ok' }];
    const copy = structuredClone(input);
    const out = await resolveItemReferences(input, lookupOf({ msg_a_0: msg, fc_a_1: call }), false);
    expect(out).toEqual([input[0], msg, call, input[3]]);
    expect(input).toEqual(copy);
  });

  it('an unknown id: 400 naming input[i], in OpenAI wording', async () => {
    const input = [{ role: 'user', content: 'a' }, { type: 'item_reference', id: 'msg_a_0' }, { type: 'item_reference', id: 'msg_gone' }];
    const err = (await resolveItemReferences(input, lookupOf({ msg_a_0: msg }), false).catch((e: unknown) => e)) as GatewayError;
    expect(err).toBeInstanceOf(GatewayError);
    expect(err.kind).toBe('invalid_request');
    expect(err.param).toBe('input[2]');
    expect(err.message).toBe("Item with id 'msg_gone' not found (input[2]).");
  });

  it('forwardUnresolved keeps what cannot be resolved and still swaps what can', async () => {
    const input = [{ type: 'item_reference', id: 'msg_a_0' }, { type: 'item_reference', id: 'msg_openai' }];
    expect(await resolveItemReferences(input, lookupOf({ msg_a_0: msg }), true)).toEqual([msg, input[1]]);
  });
});

describe('expandItemReferences', () => {
  const plan = (...protocols: string[]): RoutePlan => ({ label: 'm', targets: protocols.map((protocol) => ({ provider: { protocol } }) as never) });
  const store = new ResponsesRepository(new MemoryStateStore(), { ttlMs: 60_000 });
  const record: StoredResponse = { id: 'resp_a', owner: 'alice', createdAt: 0, response: { id: 'resp_a', output: [msg] }, inputItems: [], turns: [] };
  const saved = store.save(record);

  it('other doors and bodies without references come back as they are', async () => {
    await saved;
    const body = { model: 'm', input: [{ role: 'user', content: 'a' }] };
    expect(await expandItemReferences('responses', body, () => plan('messages'), store, 'alice')).toBe(body);
    const refs = { model: 'm', messages: [], input: [{ id: 'x' }] };
    expect(await expandItemReferences('messages', refs, () => plan('messages'), store, 'alice')).toBe(refs);
  });

  it('a plan without a Responses deployment needs every item; one with any keeps the unknown ones for it', async () => {
    const body = { model: 'm', input: [{ type: 'item_reference', id: 'msg_a_0' }, { type: 'item_reference', id: 'msg_vendor' }] };
    await expect(expandItemReferences('responses', body, () => plan('messages', 'chat'), store, 'alice')).rejects.toMatchObject({ param: 'input[1]' });
    for (const p of [plan('responses'), plan('responses', 'messages')]) {
      const out = await expandItemReferences('responses', body, () => p, store, 'alice');
      expect(out.input).toEqual([msg, body.input[1]]);
    }
    // Another key does not see alice's item.
    await expect(expandItemReferences('responses', body, () => plan('messages'), store, 'bob')).rejects.toMatchObject({ param: 'input[0]' });
  });

  it('the state store away: a plan that can forward keeps the references; one that cannot rejects with StateUnavailableError (a 503, not a 400)', async () => {
    const down = { getItem: () => Promise.reject(new StateUnavailableError('get', 'state store unavailable (test)')) };
    const body = { model: 'm', input: [{ type: 'item_reference', id: 'msg_a_0' }] };
    expect((await expandItemReferences('responses', body, () => plan('responses', 'messages'), down, 'alice')).input).toEqual(body.input);
    await expect(expandItemReferences('responses', body, () => plan('messages'), down, 'alice')).rejects.toBeInstanceOf(StateUnavailableError);
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
