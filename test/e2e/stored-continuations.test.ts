// `previous_response_id` on the shared store, in one gateway process (memory backend), asserting on
// what the scripted upstream received: the translation lane splices the stored turns; the pass-through
// lane forwards the id to the OpenAI deployment that produced the answer and inlines the history for any
// other; a continuation may change protocol; `instructions` are not inherited; `store: false` keeps
// nothing; another key's id is unknown. Then the OpenAI SDK's retrieve / inputItems.list / delete on
// answers that came from a Messages and a Chat upstream.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODELS, startHarness, type Harness } from '../support/gateway-harness.js';
import { echoMarkers, marker, responsesTurn } from '../support/responses-chain.js';

const KEYS = [
  { name: 'alice', key: 'sk-alice-cont-1' },
  { name: 'bob', key: 'sk-bob-cont-1' },
];
const ALT = { alias: 'via-responses-b', upstream: 'gpt-upstream-2' };

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    apiKey: KEYS[0]!.key,
    config: (base) => ({
      auth: { keys: KEYS },
      providers: {
        'up-messages': { protocol: 'messages', base_url: base, api_key: 'k-m', retry: { attempts: 1 } },
        'up-responses': { protocol: 'responses', base_url: base + '/v1', api_key: 'k-r', retry: { attempts: 1 } },
        'up-responses-b': { protocol: 'responses', base_url: base + '/v1', api_key: 'k-rb', retry: { attempts: 1 } },
        'up-chat': { protocol: 'chat', base_url: base + '/v1', api_key: 'k-c', retry: { attempts: 1 } },
      },
      models: {
        [MODELS.messages.alias]: { provider: 'up-messages', model: MODELS.messages.upstream },
        [MODELS.responses.alias]: { provider: 'up-responses', model: MODELS.responses.upstream },
        [ALT.alias]: { provider: 'up-responses-b', model: ALT.upstream },
        [MODELS.chat.alias]: { provider: 'up-chat', model: MODELS.chat.upstream },
      },
    }),
  });
  h.upstream.setDefault(echoMarkers);
});
afterAll(async () => {
  await h?.close();
});

const alice = { apiKey: KEYS[0]!.key };

/** The upstream requests whose body carries `text`, in arrival order. */
function receivedWith(text: string) {
  return h.upstream.received.filter((r) => r.method === 'POST' && JSON.stringify(r.body).includes(text));
}

/** The upstream request of a turn: the first to carry its marker (later turns carry it as history). */
function upstreamOf(chain: string, turn: number) {
  return receivedWith(marker(chain, turn))[0]!;
}

async function chain(name: string, models: string[], stream: boolean): Promise<string[]> {
  const ids: string[] = [];
  for (let t = 1; t <= models.length; t++) {
    const r = await responsesTurn(
      h.url,
      { model: models[t - 1], input: `${marker(name, t)} go`, ...(ids.length ? { previous_response_id: ids[ids.length - 1] } : {}) },
      { ...alice, stream },
    );
    expect(r.status, r.text).toBe(200);
    expect(r.text).toBe(`(ok ${marker(name, t)})`);
    ids.push(r.id!);
  }
  return ids;
}

describe('previous_response_id through the shared store', () => {
  for (const stream of [false, true]) {
    for (const via of [MODELS.messages.alias, MODELS.chat.alias]) {
      it(`translation lane (${via}, ${stream ? 'streamed' : 'not streamed'}): the third turn carries the whole conversation`, async () => {
        const name = `tr-${via}-${stream}`;
        await chain(name, [via, via, via], stream);
        const body = JSON.stringify(upstreamOf(name, 3).body);
        for (const t of [1, 2]) {
          expect(body).toContain(marker(name, t));
          expect(body).toContain(`(ok ${marker(name, t)})`);
        }
        // Nothing the upstream cannot take is forwarded.
        expect(body).not.toContain('previous_response_id');
      });
    }

    it(`pass-through to the deployment that produced it (${stream ? 'streamed' : 'not streamed'}): the id goes as it is, no history spliced`, async () => {
      const name = `pt-same-${stream}`;
      const ids = await chain(name, [MODELS.responses.alias, MODELS.responses.alias], stream);
      const second = upstreamOf(name, 2).body;
      expect(second.previous_response_id).toBe(ids[0]);
      expect(JSON.stringify(second.input)).not.toContain(marker(name, 1));
    });

    it(`pass-through to another Responses deployment (${stream ? 'streamed' : 'not streamed'}): history inlined into input, the id dropped`, async () => {
      const name = `pt-other-${stream}`;
      await chain(name, [MODELS.responses.alias, ALT.alias, MODELS.responses.alias], stream);
      const second = upstreamOf(name, 2).body;
      expect(second.model).toBe(ALT.upstream);
      expect(second.previous_response_id).toBeUndefined();
      const input = JSON.stringify(second.input);
      expect(input).toContain(marker(name, 1));
      expect(input).toContain(`(ok ${marker(name, 1)})`);
      // Back on the first deployment, which never saw turn 2: inlined again, all of it.
      const third = upstreamOf(name, 3).body;
      expect(third.previous_response_id).toBeUndefined();
      for (const t of [1, 2]) expect(JSON.stringify(third.input)).toContain(`(ok ${marker(name, t)})`);
    });
  }

  it('a conversation changes protocol: a pass-through answer continues on Messages, then on Chat', async () => {
    const name = 'cross';
    await chain(name, [MODELS.responses.alias, MODELS.messages.alias, MODELS.chat.alias], true);
    const onMessages = upstreamOf(name, 2);
    expect(onMessages.protocol).toBe('messages');
    expect(JSON.stringify(onMessages.body.messages)).toContain(`(ok ${marker(name, 1)})`);
    const onChat = upstreamOf(name, 3);
    expect(onChat.protocol).toBe('chat');
    for (const t of [1, 2]) expect(JSON.stringify(onChat.body.messages)).toContain(`(ok ${marker(name, t)})`);
  });

  it('item_reference to a pass-through answer: forwarded as is to the deployment that produced it, resolved for any other', async () => {
    const first = await responsesTurn(h.url, { model: MODELS.responses.alias, input: marker('ref', 1) }, alice);
    expect(first.status).toBe(200);
    const stored = await eventually(() => h.openai.responses.retrieve(first.id!));
    const itemId = stored.output[0]!.id!;
    for (const [t, model] of [[2, MODELS.responses.alias], [3, ALT.alias], [4, MODELS.messages.alias]] as const) {
      const r = await responsesTurn(h.url, { model, input: [{ type: 'item_reference', id: itemId }, { role: 'user', content: marker('ref', t) }] }, alice);
      expect(r.status, r.text).toBe(200);
    }
    expect(JSON.stringify(upstreamOf('ref', 2).body.input)).toContain(`{"type":"item_reference","id":"${itemId}"}`);
    for (const t of [3, 4]) {
      const body = JSON.stringify(upstreamOf('ref', t).body);
      expect(body).not.toContain('item_reference');
      expect(body).toContain(`(ok ${marker('ref', 1)})`);
    }
  });

  it('instructions are not inherited; tools come from the new request', async () => {
    const first = await responsesTurn(h.url, { model: MODELS.messages.alias, input: `${marker('ins', 1)}`, instructions: 'ALWAYS-RHYME' }, alice);
    expect(first.status).toBe(200);
    const second = await responsesTurn(
      h.url,
      {
        model: MODELS.messages.alias,
        input: `${marker('ins', 2)}`,
        previous_response_id: first.id,
        tools: [{ type: 'function', name: 'lookup', parameters: { type: 'object', properties: {} }, strict: false }],
      },
      alice,
    );
    expect(second.status, second.text).toBe(200);
    const body = upstreamOf('ins', 2).body;
    expect(JSON.stringify(body)).not.toContain('ALWAYS-RHYME');
    expect(body.tools.map((t: { name: string }) => t.name)).toEqual(['lookup']);
  });

  it('store: false keeps nothing; an unknown id, or another key’s, is previous_response_not_found', async () => {
    const unstored = await responsesTurn(h.url, { model: MODELS.messages.alias, input: marker('nostore', 1), store: false }, alice);
    expect(unstored.status).toBe(200);
    const stored = await responsesTurn(h.url, { model: MODELS.messages.alias, input: marker('owned', 1) }, alice);
    for (const [id, apiKey] of [
      [unstored.id!, KEYS[0]!.key],
      ['resp_never_made', KEYS[0]!.key],
      [stored.id!, KEYS[1]!.key],
    ] as const) {
      const r = await responsesTurn(h.url, { model: MODELS.messages.alias, input: 'x', previous_response_id: id }, { apiKey });
      expect(r.status).toBe(400);
      const err = JSON.parse(r.text) as { error: { code: string; param: string; message: string } };
      expect(err.error).toMatchObject({ code: 'previous_response_not_found', param: 'previous_response_id', message: `Previous response with id '${id}' not found.` });
    }
  });

  it('a Responses-only plan forwards ids the gateway never stored, but never another key’s', async () => {
    const alices = await responsesTurn(h.url, { model: MODELS.responses.alias, input: marker('mine', 1) }, alice);
    await eventually(() => h.openai.responses.retrieve(alices.id!));
    const foreign = await responsesTurn(h.url, { model: MODELS.responses.alias, input: marker('theirs', 1), previous_response_id: alices.id }, { apiKey: KEYS[1]!.key });
    expect(foreign.status).toBe(400);
    expect(JSON.parse(foreign.text).error.code).toBe('previous_response_not_found');
    expect(receivedWith(marker('theirs', 1))).toEqual([]);
    // An id made at OpenAI directly: the upstream gets it as it is.
    const outside = await responsesTurn(h.url, { model: MODELS.responses.alias, input: marker('outside', 1), previous_response_id: 'resp_made_elsewhere' }, alice);
    expect(outside.status).toBe(200);
    expect(upstreamOf('outside', 1).body.previous_response_id).toBe('resp_made_elsewhere');
  });
});

describe('OpenAI SDK: retrieve, inputItems.list, delete on answers from other protocols', () => {
  for (const via of [MODELS.messages.alias, MODELS.chat.alias]) {
    for (const stream of [false, true]) {
      it(`${via} (${stream ? 'streamed' : 'not streamed'})`, async () => {
        const client = h.openai;
        const input: OpenAI.Responses.ResponseInput = [
          { role: 'user', content: `${marker('sdk', 1)} first` },
          { role: 'user', content: [{ type: 'input_text', text: 'second part' }] },
        ];
        const created = stream
          ? await client.responses.stream({ model: via, input }).finalResponse()
          : await client.responses.create({ model: via, input });
        expect(created.output_text).toBe(`(ok ${marker('sdk', 1)})`);
        // The save runs after the last byte: give it the moment it needs.
        const retrieved = await eventually(() => client.responses.retrieve(created.id));
        expect(retrieved.id).toBe(created.id);
        expect(retrieved.output_text).toBe(created.output_text);
        expect(retrieved.model).toBe(via);
        // The record keeps the parts and renders the response again: the whole object the caller got
        // (the stream helper's finalResponse() adds its own `output_parsed` and `parsed` members).
        const got = JSON.parse(JSON.stringify(created, (k, v: unknown) => (k === 'output_parsed' || k === 'parsed' ? undefined : v))) as unknown;
        expect(retrieved).toEqual(got);
        // A continuation through the SDK: the stored turn (the caller's input and the answer) goes upstream.
        const next = await client.responses.create({ model: via, input: `${marker('sdk-next', 1)} more`, previous_response_id: created.id, stream: false });
        expect(next.output_text).toBe(`(ok ${marker('sdk-next', 1)})`);
        const sentUp = JSON.stringify(receivedWith(marker('sdk-next', 1)).at(-1)!.body);
        for (const text of [`${marker('sdk', 1)} first`, 'second part', `(ok ${marker('sdk', 1)})`]) expect(sentUp).toContain(text);
        const items = await client.responses.inputItems.list(created.id, { order: 'asc' });
        expect(items.data.map((i) => (i as { role?: string }).role)).toEqual(['user', 'user']);
        expect(JSON.stringify(items.data[0])).toContain(marker('sdk', 1));
        expect(items.data.every((i) => typeof i.id === 'string' && i.id.length > 0)).toBe(true);
        // Another key sees nothing.
        const bob = new OpenAI({ baseURL: h.url + '/v1', apiKey: KEYS[1]!.key, maxRetries: 0 });
        await expect(bob.responses.retrieve(created.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
        await client.responses.delete(created.id);
        await expect(client.responses.retrieve(created.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
      });
    }
  }
});

async function eventually<T>(fn: () => Promise<T>, ms = 2000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (Date.now() > until || !(err instanceof OpenAI.NotFoundError)) throw err;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

describe('what is not stored', () => {
  let small: Harness;
  beforeAll(async () => {
    // A bound that holds a short exchange but not a long one.
    small = await startHarness({ config: () => ({ responses_store: { max_bytes: 20_000 } }) });
    small.upstream.setDefault(echoMarkers);
  });
  afterAll(async () => {
    await small?.close();
  });

  it('an answer larger than the store: the caller gets it, the save is refused with a count, not an error', async () => {
    const big = await responsesTurn(small.url, { model: MODELS.messages.alias, input: `${marker('big', 1)} ${'x'.repeat(30_000)}` });
    expect(big.status).toBe(200);
    const fits = await responsesTurn(small.url, { model: MODELS.messages.alias, input: marker('fits', 1) });
    await eventuallyStatus(`${small.url}/v1/responses/${fits.id}`, 200);
    expect((await fetch(`${small.url}/v1/responses/${big.id}`)).status).toBe(404);
    const metrics = await (await fetch(`${small.url}/metrics`)).text();
    expect(metrics).toMatch(/switchyard_state_errors_total\{op="put"\} [1-9]/);
  });

  it('a caller that leaves mid-stream: nothing is stored for the answer it never got', async () => {
    small.upstream.enqueue({ kind: 'stall', afterBlocks: [{ type: 'text', text: 'part' }], ms: 1500 });
    const ac = new AbortController();
    const res = await fetch(`${small.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODELS.messages.alias, input: marker('left', 1), stream: true }),
      signal: ac.signal,
    });
    const reader = res.body!.getReader();
    let text = '';
    while (!/resp_\w+/.test(text)) text += new TextDecoder().decode((await reader.read()).value);
    const id = /resp_\w+/.exec(text)![0];
    ac.abort();
    await new Promise((r) => setTimeout(r, 2000));
    expect((await fetch(`${small.url}/v1/responses/${id}`)).status).toBe(404);
  });
});

async function eventuallyStatus(url: string, status: number, ms = 2000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    const got = (await fetch(url)).status;
    if (got === status) return;
    if (Date.now() > until) throw new Error(`${url}: ${got}, wanted ${status}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
