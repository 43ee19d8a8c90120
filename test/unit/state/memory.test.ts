import { describe, expect, it } from 'vitest';
import { MAX_MEMORY_CLAIMS, MemoryStateStore } from '../../../src/state/memory-store.js';
import { stateStoreContract } from './contract.js';

describe('memory state store', () => {
  let now = Date.now();
  stateStoreContract({
    make: async (options) => new MemoryStateStore({ ...options, now: () => now }),
    advance: async (ms) => {
      now += ms;
    },
    slackMs: 0,
  });

  it('reuses the memory of evicted documents without changing a live one, nor a value read before', async () => {
    // ~9 KB documents in a 1 MiB namespace: its 256 KiB chunks fill, empty and are reused many times over.
    const s = new MemoryStateStore({ namespaces: [{ name: 'docs', maxBytes: 1024 * 1024 }] });
    const value = (i: number) => Buffer.alloc(9000 + (i % 13) * 7, i % 251);
    const kept = await s.putDoc('docs', 'first', 'a', value(0), 60_000).then(() => s.getDoc('docs', 'first', 'a'));
    const big = Buffer.alloc(100_000, 9); // larger than a chunk's quarter: a buffer of its own
    for (let i = 1; i < 3000; i++) {
      await s.putDoc('docs', 'd' + i, 'a', i % 500 === 0 ? big : value(i), 60_000);
      if (i % 17 === 0) await s.deleteDoc('docs', 'd' + (i - 3), 'a');
      if (i % 97 === 0) {
        // Every document still held reads back exactly what was written.
        for (let k = Math.max(1, i - 150); k <= i; k++) {
          const got = await s.getDoc('docs', 'd' + k, 'a');
          if (got) expect(Buffer.from(got).equals(k % 500 === 0 ? big : value(k)), 'd' + k).toBe(true);
        }
      }
    }
    expect(await s.getDoc('docs', 'first', 'a')).toBeUndefined();
    expect(Buffer.from(kept!).equals(value(0))).toBe(true);
  });

  it('documents that leave out of order do not let old ones hold whole chunks: held memory stays within ~2x the documents', async () => {
    // 1,000 quiet owners keep one 2 KB document each, written between a noisy owner's documents, which its
    // share evicts out of order: without emptying sparse chunks each quiet document would hold a 256 KiB chunk.
    const s = new MemoryStateStore({ namespaces: [{ name: 'docs', maxBytes: 64 * 1024 * 1024, ownerMaxBytes: 2 * 1024 * 1024 }] });
    const doc = (i: number) => Buffer.alloc(2000, i % 251);
    for (let q = 0; q < 1000; q++) {
      await s.putDoc('docs', 'q' + q, 'quiet' + q, doc(q), 60_000);
      for (let n = 0; n < 100; n++) await s.putDoc('docs', `n${q}-${n}`, 'noisy', doc(n), 60_000);
    }
    // Live: 1,000 quiet documents and the noisy owner's 2 MiB share, about 4 MiB.
    let live = 0;
    for (let q = 0; q < 1000; q++) {
      const got = await s.getDoc('docs', 'q' + q, 'quiet' + q);
      expect(got && Buffer.from(got).equals(doc(q)), 'q' + q).toBe(true);
      live += 2000;
    }
    live += 2 * 1024 * 1024;
    expect(s.heldDocumentBytes()).toBeLessThan(2 * live + 5 * 256 * 1024);
    expect(s.heldDocumentBytes()).toBeGreaterThanOrEqual(live);
  });

  it('stored answers evicted in written order: the chunks hold the bound, not more (no holes, no chunk kept)', async () => {
    // As the Responses store fills: a ~6 KB record, then a small item entry naming it, over and over.
    const max = 8 * 1024 * 1024;
    const s = new MemoryStateStore({ namespaces: [{ name: 'docs', maxBytes: max }] });
    const record = (i: number) => Buffer.alloc(5800 + (i % 400), i % 251);
    const entry = Buffer.alloc(30, 1);
    let most = 0;
    for (let i = 0; i < 20_000; i++) {
      await s.putDoc('docs', 'resp_' + i, 'anonymous', record(i), 3_600_000);
      await s.putDoc('docs', 'item:msg_' + i, 'anonymous', entry, 3_600_000);
      if (i > 2000) most = Math.max(most, s.heldDocumentBytes());
    }
    expect(most).toBeGreaterThan(max - 256 * 1024);
    // The current chunk's unused end and the oldest, partly evicted chunk: at most two chunks beyond the bound.
    expect(most).toBeLessThanOrEqual(max + 2 * 256 * 1024);
    expect(await s.getDoc('docs', 'resp_19999', 'anonymous')).toBeDefined();
  });

  it('keeps exactly the newest documents through thousands of evictions, rewrites and deletes (its write-order queue compacts)', async () => {
    // 10 value bytes + id (5) + owner (1) = 16 bytes a document; the namespace holds 100, an owner 60.
    const s = new MemoryStateStore({ namespaces: [{ name: 'docs', maxBytes: 1600, ownerMaxBytes: 960 }] });
    const v = Buffer.alloc(10, 7);
    const id = (i: number) => 'd' + String(i).padStart(4, '0');
    const live: string[] = []; // owner 'a', oldest first, as the store should hold them
    for (let i = 0; i < 6000; i++) {
      await s.putDoc('docs', id(i), 'a', v, 60_000);
      live.push(id(i));
      while (live.length > 60) live.shift();
      if (i % 7 === 3 && live.length > 10) {
        // Rewrite an older one: it becomes the newest.
        const again = live.splice(live.length - 10, 1)[0]!;
        await s.putDoc('docs', again, 'a', v, 60_000);
        live.push(again);
      }
      if (i % 11 === 5) expect(await s.deleteDoc('docs', live.shift()!, 'a')).toBe(true);
    }
    for (const k of live) expect(await s.getDoc('docs', k, 'a')).toBeDefined();
    expect(await s.getDoc('docs', id(5000), 'a')).toBeUndefined();
    // Another owner fills the rest of the namespace; the namespace evicts the oldest of all.
    for (let i = 0; i < 40; i++) await s.putDoc('docs', 'b' + String(i).padStart(4, '0'), 'b', v, 60_000);
    for (const k of live) expect(await s.getDoc('docs', k, 'a')).toBeDefined();
    await s.putDoc('docs', 'b0040', 'b', v, 60_000);
    expect(await s.getDoc('docs', live[0]!, 'a')).toBeUndefined();
    expect(await s.getDoc('docs', live[1]!, 'a')).toBeDefined();
  });
});

describe('memory backend: claims are bounded by count', () => {
  it('past MAX_MEMORY_CLAIMS the oldest claims leave; the newest stay owned', async () => {
    const s = new MemoryStateStore();
    const batch = 10_000;
    for (let b = 0; b * batch < MAX_MEMORY_CLAIMS + 2 * batch; b++) {
      await s.claim('responses', Array.from({ length: batch }, (_, i) => `resp_${b}_${i}`), b === 0 ? 'alice' : 'bob', 60_000);
    }
    // The first batch (alice's) is the oldest: gone, as after a restart.
    expect(await s.claimOwners('responses', ['resp_0_0', 'resp_0_9999'])).toEqual([undefined, undefined]);
    const last = Math.ceil((MAX_MEMORY_CLAIMS + 2 * batch) / batch) - 1;
    expect(await s.claimOwners('responses', [`resp_${last}_0`, `resp_${last}_9999`])).toEqual(['bob', 'bob']);
  });

  it('an id claimed again leaves by its newest claim, past the bound and at expiry', async () => {
    let now = 1_700_000_000_000;
    const s = new MemoryStateStore({ now: () => now });
    const batch = 10_000;
    await s.claim('responses', ['r:kept'], 'alice', 600_000);
    for (let b = 0; b * batch < MAX_MEMORY_CLAIMS + 2 * batch; b++) {
      now += 1;
      await s.claim('responses', Array.from({ length: batch }, (_, i) => `resp_${b}_${i}`), 'bob', 600_000);
      // Claimed again after the sixth batch: the bound's evictions (the two oldest batches' worth) pass over
      // its first claim, as over one no longer the id's.
      if (b === 5) await s.claim('responses', ['r:kept'], 'alice', 600_000);
    }
    expect(await s.claimOwners('responses', ['r:kept', 'resp_0_0', 'resp_1_0'])).toEqual(['alice', undefined, undefined]);

    // Expiry: the first claim's time has passed, the newer one's (6 ms later) not.
    now = 1_700_000_000_000 + 600_000;
    await s.claim('responses', ['r:other'], 'carol', 600_000);
    expect(await s.claimOwners('responses', ['r:kept'])).toEqual(['alice']);
    now += 6;
    await s.claim('responses', ['r:other'], 'carol', 600_000);
    expect(await s.claimOwners('responses', ['r:kept', 'r:other'])).toEqual([undefined, 'carol']);
  });
});

describe('memory backend: long claims expire on a whole second', () => {
  it('a claim of 1,000 s or more lasts its TTL and at most one second more; shorter ones expire to the millisecond', async () => {
    let now = 1_700_000_000_123;
    const s = new MemoryStateStore({ now: () => now });
    const long = 30 * 24 * 3600_000;
    await s.claim('responses', ['r:long', 'i:item'], 'alice', long);
    await s.claim('responses', ['r:short'], 'alice', 999_999);
    now += 999_999;
    expect(await s.claimOwners('responses', ['r:long', 'r:short'])).toEqual(['alice', undefined]);
    now += long - 999_999;
    // The TTL has passed to the millisecond; the claim runs to the end of that second.
    expect(await s.claimOwners('responses', ['r:long', 'i:item'])).toEqual(['alice', 'alice']);
    now += 876; // 1_700_000_000_999 + long: still within the second
    expect(await s.claimOwners('responses', ['r:long'])).toEqual(['alice']);
    now += 1;
    expect(await s.claimOwners('responses', ['r:long', 'i:item'])).toEqual([undefined, undefined]);
    await s.claim('responses', ['r:long'], 'bob', long);
    expect(await s.claimOwners('responses', ['r:long'])).toEqual(['bob']);
  });
});
