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
import { applyRecordWrites, changedIdsSince } from './record-logic.js';
import { AUDIT_KEEP, RECORD_CHANGES_KEEP, type RecordChanges, type AdmissionCheck, type AdmissionResult, type Charge, type CheckState, type Lease, type RecordSnapshot, type RecordWrite, type RecordWriteResult, type StateStore } from './types.js';

interface Doc {
  owner: string;
  /** A view into `chunk` (or a buffer of its own when large). */
  value: Uint8Array;
  chunk: Chunk | undefined;
  bytes: number;
  expiresAt: number;
  /** Write number: tells a queue entry of this write from one of an earlier write of the same id. */
  seq: number;
}

/**
 * Ids in written order, oldest first. Not a Map/Set walked from its start: a full store evicts at
 * every write, and V8 leaves a deleted entry in place until the table is rebuilt, so each walk stepped
 * over thousands of them (measured: the largest share of a save's CPU). Entries of dropped or
 * rewritten documents are skipped (their seq no longer matches) and the array is compacted now and then.
 */
class WriteOrder {
  private ids: string[] = [];
  private seqs: number[] = [];
  private head = 0;

  push(id: string, seq: number): void {
    this.ids.push(id);
    this.seqs.push(seq);
  }

  /** The oldest id still written by the write it was queued for, or undefined. */
  oldest(docs: Map<string, Doc>): string | undefined {
    while (this.head < this.ids.length) {
      const id = this.ids[this.head]!;
      if (docs.get(id)?.seq === this.seqs[this.head]) return id;
      this.head++;
    }
    return undefined;
  }

  /** Drops the skipped entries once they are half the array. */
  compact(): void {
    if (this.head < 1024 || this.head * 2 < this.ids.length) return;
    this.ids = this.ids.slice(this.head);
    this.seqs = this.seqs.slice(this.head);
    this.head = 0;
  }
}

/** Documents' bytes are copied into chunks, each reused once no document is cut from it any longer. */
interface Chunk {
  buf: Buffer;
  /** The documents still cut from it, and their bytes. */
  docs: Set<Doc>;
  liveBytes: number;
}

const CHUNK_BYTES = 256 * 1024;
/** Free chunks kept for reuse (8 MiB); beyond, a chunk is left to the GC. */
const MAX_FREE_CHUNKS = 32;

/**
 * Where the memory backend keeps documents' bytes. Chunks are reused, not left to the GC: with every
 * save allocating new memory, a full store's dead chunks waited for a major GC (the growth of external
 * memory triggered them: mark-compacts the store alone caused) and every save wrote into pages never
 * touched (page faults). Eviction is oldest first, so a chunk's documents mostly leave together. Those
 * that leave out of order (a delete, an overwrite, an owner's share, an expiry) could let one old
 * document hold a whole chunk; so once the chunks hold more than 1.5 times the documents' bytes plus 1 MiB
 * (and 1 MiB more than after the last compaction), every chunk less than half full is emptied by moving what
 * is left into the current one (`compact`): the chunks then hold at most about twice the documents' bytes,
 * and a compaction copies at most as many bytes as it frees.
 */
class Arena {
  private current: Chunk = { buf: Buffer.alloc(0), docs: new Set(), liveBytes: 0 };
  private at = 0;
  private readonly free: Chunk[] = [];
  private readonly inUse = new Set<Chunk>();
  private compacting = false;
  /** `heldBytes` after the last compaction: the next one waits until 1 MiB more is held (a compaction that
   * left chunks between half and two thirds full must not rescan them at every save). */
  private heldAfterCompaction = 0;
  /** Bytes of the chunks in use (documents, holes, the current chunk's unused end) and of large documents. */
  heldBytes = 0;
  /** Bytes of the documents themselves. */
  private liveBytes = 0;

  /** Copies the document's bytes (`doc.value`) in and points `doc` at the copy. */
  place(doc: Doc): void {
    const value = doc.value;
    const n = value.byteLength;
    this.liveBytes += n;
    if (n === 0 || n > CHUNK_BYTES / 4) {
      doc.value = copyOf(value);
      doc.chunk = undefined;
      this.heldBytes += n;
      return;
    }
    if (this.current.buf.length - this.at < n) {
      this.current = this.free.pop() ?? { buf: Buffer.allocUnsafeSlow(CHUNK_BYTES), docs: new Set(), liveBytes: 0 };
      this.inUse.add(this.current);
      this.heldBytes += CHUNK_BYTES;
      this.at = 0;
    }
    const chunk = this.current;
    chunk.buf.set(value, this.at);
    doc.value = chunk.buf.subarray(this.at, this.at + n);
    doc.chunk = chunk;
    this.at += (n + 7) & ~7;
    chunk.docs.add(doc);
    chunk.liveBytes += n;
    if (this.heldBytes > 1.5 * this.liveBytes + 4 * CHUNK_BYTES && this.heldBytes > this.heldAfterCompaction + 4 * CHUNK_BYTES && !this.compacting) {
      this.compact();
    }
  }

  /** The document is gone. */
  remove(doc: Doc): void {
    const n = doc.value.byteLength;
    this.liveBytes -= n;
    const chunk = doc.chunk;
    if (chunk === undefined) {
      this.heldBytes -= n;
      return;
    }
    chunk.docs.delete(doc);
    chunk.liveBytes -= n;
    if (chunk.docs.size === 0 && chunk !== this.current) this.release(chunk);
  }

  private compact(): void {
    this.compacting = true;
    const sparse: Chunk[] = [];
    for (const c of this.inUse) if (c !== this.current && c.liveBytes < CHUNK_BYTES / 2) sparse.push(c);
    for (const c of sparse) {
      for (const doc of c.docs) {
        this.liveBytes -= doc.value.byteLength;
        this.place(doc);
      }
      c.docs.clear();
      this.release(c);
    }
    this.compacting = false;
    this.heldAfterCompaction = this.heldBytes;
  }

  private release(chunk: Chunk): void {
    chunk.liveBytes = 0;
    this.inUse.delete(chunk);
    this.heldBytes -= CHUNK_BYTES;
    if (this.free.length < MAX_FREE_CHUNKS) this.free.push(chunk);
  }
}

function copyOf(value: Uint8Array): Buffer {
  const copy = Buffer.allocUnsafeSlow(value.byteLength);
  copy.set(value);
  return copy;
}

interface Namespace {
  docs: Map<string, Doc>;
  bytes: number;
  order: WriteOrder;
  /** Per owner: its documents in written order, how many, and their bytes (the owner's share). */
  owners: Map<string, { order: WriteOrder; count: number; bytes: number }>;
}

/** Shared by every claim of one owner with the same expiry (see `claim`): a claim costs its map entry and its id. */
interface Claim {
  owner: string;
  expiresAt: number;
}

/** Claims with a TTL at least this long expire on a whole second (at most 1 s late, < 0.1 % of the TTL), so
 * one owner's claims of one second share one `Claim`. */
const CLAIM_SECOND_TTL_MS = 1_000_000;

/**
 * The id as one flat string. Ids are built by concatenation (`r:` + `resp_` + a per-process prefix + a
 * counter), which V8 keeps as a tree of pieces (≈ 40 bytes more per id, kept as long as the key); reading a
 * character makes V8 flatten it, and the next GC points the key at the flat copy and drops the pieces.
 */
function flat(id: string): string {
  id.charCodeAt(0);
  return id;
}

/**
 * One namespace's claims: id → claim, and beside the map the ids in claimed order (with the claim each was
 * given), which expiry and the bound take from the oldest end. Not the map walked from its start: V8 leaves
 * a deleted entry in place until the table is rebuilt, so once the bound was reached every claim stepped
 * over the hundreds of thousands deleted before it (measured: 0.5 ms per claim after 1,000,000 claims, a
 * long-running gateway's steady state). An entry whose id was claimed again since is skipped (its claim is
 * no longer the id's); one claimed again by the same owner in the same second shares its claim and leaves
 * at its first entry, which for expiry is the same time.
 */
class ClaimSet {
  private readonly byId = new Map<string, Claim>();
  private ids: string[] = [];
  private claims: Claim[] = [];
  private head = 0;

  get size(): number {
    return this.byId.size;
  }

  get(id: string): Claim | undefined {
    return this.byId.get(id);
  }

  set(id: string, claim: Claim): void {
    this.byId.set(id, claim);
    this.ids.push(id);
    this.claims.push(claim);
  }

  /** Drops the claims expired by `now`, oldest first (one TTL per namespace: claimed order is expiry order). */
  expire(now: number): void {
    for (; this.head < this.ids.length; this.head++) {
      const id = this.ids[this.head]!;
      const claim = this.claims[this.head]!;
      if (this.byId.get(id) !== claim) continue;
      if (claim.expiresAt > now) break;
      this.byId.delete(id);
    }
    this.compact();
  }

  /** Drops the `n` oldest claims. */
  evict(n: number): void {
    for (; n > 0 && this.head < this.ids.length; this.head++) {
      const id = this.ids[this.head]!;
      if (this.byId.get(id) !== this.claims[this.head]) continue;
      this.byId.delete(id);
      n--;
    }
    this.compact();
  }

  /** Drops the passed entries once they are half the queue. */
  private compact(): void {
    if (this.head < 1024 || this.head * 2 < this.ids.length) return;
    this.ids = this.ids.slice(this.head);
    this.claims = this.claims.slice(this.head);
    this.head = 0;
  }
}

/** The claims one process keeps (about 105 bytes each with a response id: ~50 MiB at the bound). */
export const MAX_MEMORY_CLAIMS = 500_000;

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
  /** Per namespace, its claims, keyed by the id as given: a `<ns>\0<id>` key was one more string kept per claim. */
  private readonly claims = new Map<string, ClaimSet>();
  private lastClaim: Claim = { owner: '', expiresAt: 0 };
  private readonly io: AdmissionIo;
  private readonly records = new Map<string, string>();
  private recordVersion = 0;
  private readonly audit: string[] = [];
  /** Per write, newest last: its version and the ids it touched (readRecordChanges). */
  private readonly recordChanges: { version: number; ids: string[] }[] = [];

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

  async readRecords(): Promise<RecordSnapshot> {
    return { version: this.recordVersion, records: new Map(this.records) };
  }

  async recordsVersion(): Promise<number> {
    return this.recordVersion;
  }

  async readRecordChanges(since: number): Promise<RecordChanges | undefined> {
    const ids = changedIdsSince(since, this.recordVersion, this.recordChanges);
    if (ids === undefined) return undefined;
    return { version: this.recordVersion, changes: new Map(ids.map((id) => [id, this.records.get(id) ?? null])) };
  }

  async writeRecords(writes: readonly RecordWrite[], audit: string): Promise<RecordWriteResult> {
    const io = { get: (id: string) => this.records.get(id), put: (id: string, v: string) => void this.records.set(id, v), remove: (id: string) => void this.records.delete(id) };
    const result = applyRecordWrites(writes, io, this.recordVersion);
    if (!result.ok) return result;
    this.recordVersion = result.version;
    this.recordChanges.push({ version: result.version, ids: writes.map((w) => w.id) });
    if (this.recordChanges.length > RECORD_CHANGES_KEEP) this.recordChanges.splice(0, this.recordChanges.length - RECORD_CHANGES_KEEP);
    this.audit.push(audit);
    if (this.audit.length > AUDIT_KEEP) this.audit.splice(0, this.audit.length - AUDIT_KEEP);
    return result;
  }

  async readAudit(limit: number): Promise<string[]> {
    return this.audit.slice(-Math.max(0, limit)).reverse();
  }

  async getDoc(ns: string, id: string, owner: string): Promise<Uint8Array | undefined> {
    const space = this.namespaces.get(ns);
    const doc = space?.docs.get(id);
    if (!space || !doc) return undefined;
    if (doc.expiresAt <= this.now()) {
      this.drop(space, id, doc);
      return undefined;
    }
    // A copy: the chunk is reused once the document leaves, and a reader may keep what it got.
    return doc.owner === owner ? copyOf(doc.value) : undefined;
  }

  async putDoc(ns: string, id: string, owner: string, value: Uint8Array, ttlMs: number): Promise<void> {
    const max = this.boundOf(ns);
    const ownerMax = this.ownerBoundOf(ns);
    const bytes = documentBytes(id, owner, value);
    if (bytes > ownerMax) throw tooLarge(ns, bytes, ownerMax);
    let space = this.namespaces.get(ns);
    if (!space) this.namespaces.set(ns, (space = { docs: new Map(), bytes: 0, order: new WriteOrder(), owners: new Map() }));
    const old = space.docs.get(id);
    if (old) this.drop(space, id, old);
    const now = this.now();
    const seq = ++this.writes;
    const doc: Doc = { owner, value, chunk: undefined, bytes, expiresAt: now + ttlMs, seq };
    this.arena.place(doc);
    space.docs.set(flat(id), doc);
    space.order.push(id, seq);
    space.bytes += bytes;
    let mine = space.owners.get(owner);
    if (!mine) space.owners.set(owner, (mine = { order: new WriteOrder(), count: 0, bytes: 0 }));
    mine.order.push(id, seq);
    mine.count++;
    mine.bytes += bytes;
    // The owner's own oldest first, down to its share; then the namespace's oldest (expired ones too).
    // Both end at the document just written at the latest (it fits the owner's share: checked above).
    while (mine.bytes > ownerMax) {
      const oldId = mine.order.oldest(space.docs)!;
      this.drop(space, oldId, space.docs.get(oldId)!);
    }
    for (;;) {
      const oldId = space.order.oldest(space.docs);
      if (oldId === undefined) break;
      const doc = space.docs.get(oldId)!;
      if (space.bytes <= max && doc.expiresAt > now) break;
      this.drop(space, oldId, doc);
    }
    space.order.compact();
    space.owners.get(owner)?.order.compact();
  }

  private writes = 0;
  private readonly arena = new Arena();

  /** Memory held for documents' bytes: their chunks (with holes) and large documents' own buffers. */
  heldDocumentBytes(): number {
    return this.arena.heldBytes;
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
    this.arena.remove(doc);
    space.bytes -= doc.bytes;
    const mine = space.owners.get(doc.owner)!;
    mine.count--;
    mine.bytes -= doc.bytes;
    if (mine.count === 0) space.owners.delete(doc.owner);
  }

  async claim(ns: string, ids: readonly string[], owner: string, ttlMs: number): Promise<void> {
    const now = this.now();
    let claims = this.claims.get(ns);
    if (!claims) this.claims.set(ns, (claims = new ClaimSet()));
    claims.expire(now);
    let expiresAt = now + ttlMs;
    if (ttlMs >= CLAIM_SECOND_TTL_MS) expiresAt = Math.ceil(expiresAt / 1000) * 1000;
    let c = this.lastClaim;
    if (c.owner !== owner || c.expiresAt !== expiresAt) this.lastClaim = c = { owner, expiresAt };
    for (const id of ids) {
      const held = claims.get(id);
      if (held && held.expiresAt > now && held.owner !== owner) continue;
      claims.set(flat(id), c);
    }
    // One process's memory is the bound here, not the TTL: past MAX_MEMORY_CLAIMS the oldest claims leave,
    // as all of them do when the process restarts (the file and redis backends keep every claim its TTL).
    let total = 0;
    for (const m of this.claims.values()) total += m.size;
    if (total > MAX_MEMORY_CLAIMS) claims.evict(total - MAX_MEMORY_CLAIMS);
  }

  async claimOwners(ns: string, ids: readonly string[]): Promise<(string | undefined)[]> {
    const now = this.now();
    const claims = this.claims.get(ns);
    return ids.map((id) => {
      const c = claims?.get(id);
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
