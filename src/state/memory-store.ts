// The `memory` backend: one process, nothing persisted. Maps in insertion order give "oldest written
// first" eviction for free (a rewrite deletes and re-inserts).
import {
  admitChecks,
  applyCharges,
  counterValue,
  inspectChecks,
  releaseLeases,
  type AdmissionIo,
  type CounterRecord,
  type LeaseRecord,
} from './admission-logic.js';
import { documentBytes, namespaceBounds, ownerBounds, tooLarge, type StoreOptions } from './options.js';
import type { AdmissionCheck, AdmissionResult, Charge, CheckState, Lease, StateStore } from './types.js';

interface Doc {
  owner: string;
  value: Uint8Array;
  bytes: number;
  expiresAt: number;
}

interface Namespace {
  docs: Map<string, Doc>;
  bytes: number;
  /** Per owner: its documents' ids in written order, and their bytes (the owner's share). */
  owners: Map<string, { ids: Set<string>; bytes: number }>;
}

interface Claim {
  owner: string;
  expiresAt: number;
}

export class MemoryStateStore implements StateStore {
  readonly backend = 'memory' as const;
  private readonly namespaces = new Map<string, Namespace>();
  private readonly windows = new Map<string, { entries: number[]; expiresAt: number }>();
  private readonly counters = new Map<string, CounterRecord>();
  private readonly leases = new Map<string, LeaseRecord>();
  private readonly channels = new Map<string, Set<(message: string) => void>>();
  private readonly now: () => number;
  private readonly boundOf: (ns: string) => number;
  private readonly ownerBoundOf: (ns: string) => number;
  /** `<ns>\0<id>` → claim; insertion order is (nearly) expiry order, the TTL being one setting. */
  private readonly claims = new Map<string, Claim>();
  private readonly io: AdmissionIo;

  constructor(options: StoreOptions = {}) {
    this.now = options.now ?? Date.now;
    this.boundOf = namespaceBounds(options);
    this.ownerBoundOf = ownerBounds(options);
    this.io = {
      getWindow: (key) => this.windows.get(key)?.entries,
      setWindow: (key, entries, expiresAt) => this.windows.set(key, { entries, expiresAt }),
      getCounter: (key) => this.counters.get(key),
      setCounter: (key, value) => this.counters.set(key, value),
      getLeases: (key) => this.leases.get(key),
      setLeases: (key, value) => (value ? this.leases.set(key, value) : this.leases.delete(key)),
    };
  }

  async getDoc(ns: string, id: string, owner: string): Promise<Uint8Array | undefined> {
    const space = this.namespaces.get(ns);
    const doc = space?.docs.get(id);
    if (!space || !doc) return undefined;
    if (doc.expiresAt <= this.now()) {
      this.drop(space, id, doc);
      return undefined;
    }
    return doc.owner === owner ? doc.value : undefined;
  }

  async putDoc(ns: string, id: string, owner: string, value: Uint8Array, ttlMs: number): Promise<void> {
    const max = this.boundOf(ns);
    const ownerMax = this.ownerBoundOf(ns);
    const bytes = documentBytes(id, owner, value);
    if (bytes > ownerMax) throw tooLarge(ns, bytes, ownerMax);
    let space = this.namespaces.get(ns);
    if (!space) this.namespaces.set(ns, (space = { docs: new Map(), bytes: 0, owners: new Map() }));
    const old = space.docs.get(id);
    if (old) this.drop(space, id, old);
    const now = this.now();
    space.docs.set(id, { owner, value, bytes, expiresAt: now + ttlMs });
    space.bytes += bytes;
    let mine = space.owners.get(owner);
    if (!mine) space.owners.set(owner, (mine = { ids: new Set(), bytes: 0 }));
    mine.ids.add(id);
    mine.bytes += bytes;
    // The owner's own oldest first, down to its share; then the namespace's oldest (expired ones too).
    for (const oldId of mine.ids) {
      if (mine.bytes <= ownerMax) break;
      this.drop(space, oldId, space.docs.get(oldId)!);
    }
    for (const [oldId, doc] of space.docs) {
      if (space.bytes <= max && doc.expiresAt > now) break;
      this.drop(space, oldId, doc);
    }
  }

  async deleteDoc(ns: string, id: string, owner: string): Promise<boolean> {
    const space = this.namespaces.get(ns);
    const doc = space?.docs.get(id);
    if (!space || !doc || doc.owner !== owner || doc.expiresAt <= this.now()) return false;
    this.drop(space, id, doc);
    return true;
  }

  private drop(space: Namespace, id: string, doc: Doc): void {
    space.docs.delete(id);
    space.bytes -= doc.bytes;
    const mine = space.owners.get(doc.owner)!;
    mine.ids.delete(id);
    mine.bytes -= doc.bytes;
    if (mine.ids.size === 0) space.owners.delete(doc.owner);
  }

  async claim(ns: string, ids: readonly string[], owner: string, ttlMs: number): Promise<void> {
    const now = this.now();
    // Expired claims leave from the oldest end (insertion order is expiry order for one TTL).
    for (const [k, c] of this.claims) {
      if (c.expiresAt > now) break;
      this.claims.delete(k);
    }
    for (const id of ids) {
      const k = ns + '\0' + id;
      const held = this.claims.get(k);
      if (held && held.expiresAt > now && held.owner !== owner) continue;
      this.claims.delete(k); // re-inserted at the young end
      this.claims.set(k, { owner, expiresAt: now + ttlMs });
    }
  }

  async claimOwners(ns: string, ids: readonly string[]): Promise<(string | undefined)[]> {
    const now = this.now();
    return ids.map((id) => {
      const c = this.claims.get(ns + '\0' + id);
      return c && c.expiresAt > now ? c.owner : undefined;
    });
  }

  async admit(checks: readonly AdmissionCheck[]): Promise<AdmissionResult> {
    this.sweep();
    return admitChecks(checks, this.now(), this.io);
  }

  async inspect(checks: readonly AdmissionCheck[]): Promise<CheckState[]> {
    return inspectChecks(checks, this.now(), this.io);
  }

  async charge(charges: readonly Charge[]): Promise<void> {
    applyCharges(charges, this.now(), this.io);
  }

  async release(leases: readonly Lease[]): Promise<void> {
    releaseLeases(leases, this.now(), this.io);
  }

  async settle(charges: readonly Charge[], leases: readonly Lease[]): Promise<void> {
    const now = this.now();
    releaseLeases(leases, now, this.io);
    applyCharges(charges, now, this.io);
  }

  async readCounters(keys: readonly string[]): Promise<number[]> {
    const now = this.now();
    return keys.map((k) => counterValue(this.counters.get(k), now));
  }

  async publish(channel: string, message: string): Promise<void> {
    const subs = this.channels.get(channel);
    if (!subs) return;
    // Asynchronous like the shared backends, so callers cannot come to rely on re-entrancy.
    setImmediate(() => {
      for (const fn of subs) fn(message);
    });
  }

  subscribe(channel: string, onMessage: (message: string) => void): () => void {
    let subs = this.channels.get(channel);
    if (!subs) this.channels.set(channel, (subs = new Set()));
    const fn = (m: string) => onMessage(m);
    subs.add(fn);
    return () => {
      subs.delete(fn);
    };
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    this.channels.clear();
  }

  private lastSweep = 0;

  /** Drops expired windows, counters and lapsed lease records now and then, so abandoned keys do not accumulate. */
  private sweep(): void {
    const now = this.now();
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    for (const [k, w] of this.windows) if (w.expiresAt <= now) this.windows.delete(k);
    for (const [k, c] of this.counters) if (c.e <= now) this.counters.delete(k);
    for (const [k, l] of this.leases) if (!anyLive(l, now)) this.leases.delete(k);
  }
}

/** Some lease of the record ([id, expiresAt, …]) is still live. */
function anyLive(rec: LeaseRecord, now: number): boolean {
  for (let i = 1; i < rec.length; i += 2) if ((rec[i] as number) > now) return true;
  return false;
}
