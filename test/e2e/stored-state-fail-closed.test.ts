// Stored state fails closed (issue 19, items 2–4), with the official OpenAI SDK against the real
// gateway and a scripted upstream, asserting on what the upstream received:
// - another key's output items never reach OpenAI as `item_reference`s (claims per item);
// - another key's `previous_response_id` is refused after the owner's DELETE (a tombstone claim), after
//   its record was evicted, and with `max_bytes: 0`; one key's stores cannot evict another key's;
// - a store that cannot be read answers 503 and sends nothing upstream (real redis-server, killed);
// - a hostile fan-out of references is refused or answered at once, event loop and heap bounded.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** The gateway's cap on references per request (resolve-item-references.ts). */
const MAX_ITEM_REFERENCES = 1000;
import { MODELS, startHarness, type Harness } from '../support/gateway-harness.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { requireTools } from '../support/required-tools.js';

requireTools('redis-server');

const KEYS = [
  { name: 'alice', key: 'sk-alice-fc-1' },
  { name: 'bob', key: 'sk-bob-fc-1' },
  { name: 'mallory', key: 'sk-mallory-fc-1' },
];

const clientFor = (h: Harness, i: number) => new OpenAI({ baseURL: h.url + '/v1', apiKey: KEYS[i]!.key, maxRetries: 0 });

/** Everything the upstream received from `from` on, as one string (to assert an id never arrived). */
const receivedSince = (h: Harness, from: number) => JSON.stringify(h.upstream.received.slice(from).map((r) => r.body));

async function failure(p: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(OpenAI.APIError);
  return err as InstanceType<typeof OpenAI.APIError>;
}

async function refusedContinuation(h: Harness, client: OpenAI, model: string, id: string): Promise<void> {
  const before = h.upstream.received.length;
  const err = await failure(client.responses.create({ model, input: 'continue', previous_response_id: id }));
  expect(err.status).toBe(400);
  expect(err.error).toMatchObject({ type: 'invalid_request_error', code: 'previous_response_not_found', param: 'previous_response_id', message: `Previous response with id '${id}' not found.` });
  expect(receivedSince(h, before)).not.toContain(id);
}

function harness(extra: Record<string, unknown> = {}): Promise<Harness> {
  return startHarness({ apiKey: KEYS[0]!.key, config: () => ({ auth: { keys: KEYS }, ...extra }) });
}

describe('claims: another key never reaches what a key stored at OpenAI', () => {
  let h: Harness;
  let alice: OpenAI;
  let bob: OpenAI;
  beforeAll(async () => {
    h = await harness();
    alice = clientFor(h, 0);
    bob = clientFor(h, 1);
  });
  afterAll(async () => {
    await h?.close();
  });

  it("another key's item_reference to an OpenAI-produced item is refused as an unknown item, and the id never reaches OpenAI", async () => {
    const mine = await alice.responses.create({ model: MODELS.responses.alias, input: 'a secret of alice' });
    const itemId = mine.output[0]!.id!;
    expect(itemId).toBeTruthy();
    // The owner's own reference still goes to OpenAI as it was (OpenAI resolves its own items).
    let before = h.upstream.received.length;
    await alice.responses.create({ model: MODELS.responses.alias, input: [{ type: 'item_reference', id: itemId }, { role: 'user', content: 'and?' }] });
    expect(receivedSince(h, before)).toContain(itemId);

    for (const ref of [{ type: 'item_reference' as const, id: itemId }, { id: itemId } as never]) {
      before = h.upstream.received.length;
      const err = await failure(bob.responses.create({ model: MODELS.responses.alias, input: [{ role: 'user', content: 'x' }, ref] }));
      expect(err.status).toBe(404);
      expect(err.error).toMatchObject({ type: 'invalid_request_error', param: 'input', message: `Item with id '${itemId}' not found.` });
      expect(receivedSince(h, before)).not.toContain(itemId);
    }
    // A reference nobody here claimed is OpenAI's business: forwarded as before.
    before = h.upstream.received.length;
    await bob.responses.create({ model: MODELS.responses.alias, input: [{ role: 'user', content: 'x' }, { type: 'item_reference', id: 'msg_made_elsewhere' }] });
    expect(receivedSince(h, before)).toContain('msg_made_elsewhere');

    // Deleting the response keeps its items claimed (tombstones): still refused, still not forwarded.
    await alice.responses.delete(mine.id);
    before = h.upstream.received.length;
    const after = await failure(bob.responses.create({ model: MODELS.responses.alias, input: [{ type: 'item_reference', id: itemId }] }));
    expect(after.status).toBe(404);
    expect(receivedSince(h, before)).not.toContain(itemId);
  });

  it("bob continuing alice's id after alice's DELETE is refused, on a plan that forwards unknown ids", async () => {
    const mine = await alice.responses.create({ model: MODELS.responses.alias, input: 'to be deleted' });
    await refusedContinuation(h, bob, MODELS.responses.alias, mine.id);
    await alice.responses.delete(mine.id);
    await expect(alice.responses.retrieve(mine.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await refusedContinuation(h, bob, MODELS.responses.alias, mine.id);
    // The owner may still continue it: OpenAI keeps its own copy.
    const before = h.upstream.received.length;
    await alice.responses.create({ model: MODELS.responses.alias, input: 'go on', previous_response_id: mine.id });
    expect(h.upstream.received[before]!.body.previous_response_id).toBe(mine.id);
  });
});

describe('the byte bound: shares per key, claims outside it', () => {
  let h: Harness;
  beforeAll(async () => {
    // 400 KB in all, 100 KB per key: mallory's floods evict mallory's own answers first.
    h = await harness({ responses_store: { max_bytes: 400_000, owner_share: 0.25 } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it("one key's stores do not evict another key's; a record evicted by its owner's own stores keeps its claim", async () => {
    const [alice, bob, mallory] = [clientFor(h, 0), clientFor(h, 1), clientFor(h, 2)];
    const first = await alice.responses.create({ model: MODELS.messages.alias, input: 'alice-marker-1' });
    const flood = 'm'.repeat(30_000);
    for (let i = 0; i < 30; i++) await mallory.responses.create({ model: MODELS.messages.alias, input: flood + i });
    // Alice's record survived 30 × 60 KB of mallory's: her continuation gets the stored turns.
    let before = h.upstream.received.length;
    await alice.responses.create({ model: MODELS.messages.alias, input: 'next', previous_response_id: first.id });
    expect(receivedSince(h, before)).toContain('alice-marker-1');
    // Alice's own stores do evict it (her share), but its id stays hers.
    const big = 'a'.repeat(40_000);
    for (let i = 0; i < 4; i++) await alice.responses.create({ model: MODELS.messages.alias, input: big + i });
    await expect(alice.responses.retrieve(first.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await refusedContinuation(h, bob, MODELS.responses.alias, first.id);
    // Its owner, on a Responses plan, is forwarded (OpenAI may still have it).
    before = h.upstream.received.length;
    await alice.responses.create({ model: MODELS.responses.alias, input: 'mine', previous_response_id: first.id });
    expect(h.upstream.received[before]!.body.previous_response_id).toBe(first.id);
  });
});

describe('max_bytes: 0 stores nothing but still claims', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness({ responses_store: { max_bytes: 0 } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it("another key's response and item ids are refused; nothing of them reaches the upstream", async () => {
    const [alice, bob] = [clientFor(h, 0), clientFor(h, 1)];
    const mine = await alice.responses.create({ model: MODELS.responses.alias, input: 'not stored' });
    await expect(alice.responses.retrieve(mine.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    // The claim is written after the caller's last byte: wait for it rather than race it.
    const deadline = Date.now() + 5000;
    while ((await h.gateway.ctx.responses.responseOwner(mine.id)) === undefined && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await refusedContinuation(h, bob, MODELS.responses.alias, mine.id);
    const before = h.upstream.received.length;
    const err = await failure(bob.responses.create({ model: MODELS.responses.alias, input: [{ type: 'item_reference', id: mine.output[0]!.id! }] }));
    expect(err.status).toBe(404);
    expect(receivedSince(h, before)).not.toContain(mine.output[0]!.id!);
  });
});

describe('the store down: 503, nothing upstream (real redis-server, killed)', () => {
  let h: Harness;
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
    h = await harness({ state: { backend: 'redis', url: redis.url, key_prefix: 'fc-test:', op_timeout_ms: 800 } });
  });
  afterAll(async () => {
    await h?.close();
    await redis?.stop();
  });

  it('a continuation and an item reference on a plan that could forward them get a retryable 503 in the OpenAI envelope', async () => {
    const alice = clientFor(h, 0);
    const mine = await alice.responses.create({ model: MODELS.responses.alias, input: 'before the outage' });
    const deadline = Date.now() + 5000;
    while ((await h.gateway.ctx.responses.responseOwner(mine.id)) === undefined && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await redis.kill();
    try {
      const bodies = [
        { model: MODELS.responses.alias, input: 'continue', previous_response_id: mine.id },
        { model: MODELS.responses.alias, input: [{ type: 'item_reference' as const, id: mine.output[0]!.id! }] },
        { model: MODELS.responses.alias, input: 'x', previous_response_id: 'resp_never_seen_here' },
      ];
      for (const body of bodies) {
        const before = h.upstream.received.length;
        const err = await failure(alice.responses.create(body));
        expect(err.status).toBe(503);
        expect(err.error).toMatchObject({ type: 'server_error', code: 'service_unavailable' });
        expect((err.error as { message: string }).message).toMatch(/^state store unavailable/);
        expect(h.upstream.received.length).toBe(before);
      }
    } finally {
      await redis.start();
    }
  }, 30_000);
});

describe('hostile item_reference fan-out', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      apiKey: KEYS[0]!.key,
      config: () => ({ auth: { keys: [...KEYS, { name: 'limited', key: 'sk-limited-fc-1', limits: { rpm: 1 } }] } }),
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('admission comes first: a key over its rpm is refused before any store read, its references unread', async () => {
    const alice = clientFor(h, 0);
    const mine = await alice.responses.create({ model: MODELS.messages.alias, input: 'for the limited key' });
    const limited = new OpenAI({ baseURL: h.url + '/v1', apiKey: 'sk-limited-fc-1', maxRetries: 0 });
    await limited.responses.create({ model: MODELS.messages.alias, input: 'the one request of this minute' });
    const store = h.gateway.ctx.stateStore;
    let reads = 0;
    const [getDoc, claimOwners] = [store.getDoc.bind(store), store.claimOwners.bind(store)];
    store.getDoc = (...a) => (reads++, getDoc(...a));
    store.claimOwners = (...a) => (reads++, claimOwners(...a));
    try {
      const refs = Array.from({ length: 500 }, (_, i) => ({ type: 'item_reference' as const, id: i % 2 ? mine.output[0]!.id! : `msg_${i}` }));
      const err = await failure(limited.responses.create({ model: MODELS.messages.alias, input: refs, previous_response_id: mine.id }));
      expect(err.status).toBe(429);
      expect(reads).toBe(0);
    } finally {
      store.getDoc = getDoc;
      store.claimOwners = claimOwners;
    }
  });

  it('tens of thousands of references to one large conversation: refused at once; a thousand: answered with one read each distinct id', async () => {
    const alice = clientFor(h, 0);
    // A large stored conversation (~4 MiB of turns): the old expansion parsed it once per reference.
    const large = await alice.responses.create({ model: MODELS.messages.alias, input: 'L'.repeat(4 * 1024 * 1024) });
    const itemId = large.output[0]!.id!;
    const lag = monitorEventLoopDelay({ resolution: 10 });
    lag.enable();
    const rss0 = process.memoryUsage().rss;
    try {
      let started = performance.now();
      const many = Array.from({ length: 30_000 }, () => ({ type: 'item_reference' as const, id: itemId }));
      const err = await failure(alice.responses.create({ model: MODELS.messages.alias, input: many }));
      expect(err.status).toBe(400);
      expect(err.error).toMatchObject({ type: 'invalid_request_error', param: 'input' });
      expect((err.error as { message: string }).message).toContain(String(MAX_ITEM_REFERENCES));
      const refusedMs = performance.now() - started;

      started = performance.now();
      const atCap = Array.from({ length: MAX_ITEM_REFERENCES }, () => ({ type: 'item_reference' as const, id: itemId }));
      const answer = await alice.responses.create({ model: MODELS.messages.alias, input: [...atCap.slice(1), { role: 'user', content: 'summarise' }] });
      expect(answer.status).toBe('completed');
      const answeredMs = performance.now() - started;
      lag.disable();
      const maxLagMs = lag.max / 1e6;
      const rssGrowthMiB = (process.memoryUsage().rss - rss0) / 2 ** 20;
      // Generous bounds for a loaded shared machine; the old path took minutes and gigabytes here.
      expect(refusedMs).toBeLessThan(10_000);
      expect(answeredMs).toBeLessThan(10_000);
      expect(maxLagMs).toBeLessThan(2_000);
      expect(rssGrowthMiB).toBeLessThan(512);
      console.log(`fan-out: 30k refs refused in ${refusedMs.toFixed(0)} ms; ${MAX_ITEM_REFERENCES - 1} refs answered in ${answeredMs.toFixed(0)} ms; max event-loop lag ${maxLagMs.toFixed(0)} ms; RSS +${rssGrowthMiB.toFixed(0)} MiB`);
    } finally {
      lag.disable();
    }
  }, 60_000);
});
