// The `file` backend: LMDB (the `lmdb` package, prebuilt binaries inside the npm package) in a local
// directory. LMDB's single writer lock is shared between processes, so each admit/charge/put runs in
// one synchronous write transaction and is atomic across every worker on the machine; data survives a
// restart. Commits skip fsync (noSync): a process crash loses nothing, an OS crash may lose the last
// moments of counters and stored responses, which is acceptable for this data and keeps writes cheap.
//
// Broadcast: a per-channel sequence number plus the last 64 messages, polled on a short timer (25 ms)
// while someone subscribes. Chosen over unix datagrams because it needs no socket directory, no peer
// discovery and no cleanup of dead workers' sockets; 25 ms is well inside one request.
//
// lmdb itself is imported when a store is made, not when this module is: see `openDatabase`.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { RootDatabase } from 'lmdb';
import {
  admitChecks,
  applyCharges,
  counterValue,
  inspectChecks,
  leaseRecordOf,
  releaseLeases,
  type AdmissionIo,
  type CounterRecord,
} from './admission-logic.js';
import { documentBytes, namespaceBounds, ownerBounds, tooLarge, type StoreOptions } from './options.js';
import { applyRecordWrites, changedIdsSince } from './record-logic.js';
import {
  AUDIT_KEEP,
  RECORD_CHANGES_KEEP,
  StateUnavailableError,
  type AdmissionCheck,
  type AdmissionResult,
  type Charge,
  type CheckState,
  type Lease,
  type RecordChanges,
  type RecordSnapshot,
  type RecordWrite,
  type RecordWriteResult,
  type StateStore,
} from './types.js';

interface DocRecord {
  o: string;
  e: number;
  b: number;
  s: number;
  v: Uint8Array;
}
interface PendingCall {
  op: string;
  fn: (now: number) => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}
/** A record as a batch's calls see it; `dirty` ones are written when the batch's transaction ends. */
interface CachedRecord {
  value: unknown;
  dirty: boolean;
}
interface Subscription {
  /** The last message number delivered, or UNSET. */
  last: number;
  /** When it was made (store clock): while UNSET, messages published since then are still its. */
  since: number;
  fns: Set<(m: string) => void>;
}
/** A broadcast message as stored; a bare string is the format before publish times were kept. */
type StoredMessage = { t: number; m: string } | string;
const messageText = (v: StoredMessage): string => (typeof v === 'string' ? v : v.m);
interface NamespaceMeta {
  bytes: number;
  seq: number;
}
/** A claim (`k\0<ns>\0<id>`): its owner and expiry; `ke\0<expiry>\0<ns>\0<id>` orders them for the sweep. */
interface ClaimRecord {
  o: string;
  e: number;
}
/** Expired claims removed per claim call: bounded work, and claims arrive faster than they expire. */
const CLAIM_SWEEP = 64;

const KEEP_MESSAGES = 64;
const POLL_MS = 25;
const pad = (n: number) => n.toString(36).padStart(11, '0');
/** A subscription made before the database was open: its starting point is read once it is. */
const UNSET = -1;

/** lmdb-js renews its read snapshot once per event-loop turn; renew now so a write another process
 * committed a moment ago is seen even within the same turn. */
const fresh = (db: RootDatabase): void => db.resetReadTxn();

/**
 * lmdb through a dynamic ESM import, so a gateway on another backend never loads it: it costs ~6 MiB
 * of idle RSS and a 16 MiB value buffer (external memory) in every process that imports it. Its ESM
 * entry, not its CommonJS build: the ESM entry also sets up thread-safe calls and V8 fast calls, and
 * workers on the CommonJS build died of SIGBUS under load (--workers 4 on this backend).
 */
async function openDatabase(dir: string): Promise<RootDatabase> {
  const { open } = await import('lmdb');
  mkdirSync(dir, { recursive: true });
  // No write map, though it saved write syscalls (admit+settle at 32 in flight ~62 → ~47 µs CPU in
  // bench/access-overhead.ts terms): with one, LMDB sizes the file to the opener's map (ftruncate) at
  // every open, so a worker (re)starting while another has grown the store cut the file short under
  // the other's map, whose next write past the new end died with SIGBUS (test/unit/state/file.test.ts).
  // noSync: a process crash loses nothing, an OS crash may lose the last moments.
  return open({ path: join(dir, 'state.lmdb'), encoding: 'msgpack', noSync: true, cache: false });
}

export interface FileStoreOptions extends StoreOptions {
  /** A directory; created when missing. */
  path: string;
  pollMs?: number;
}

/** How often a limit transaction also sweeps dead limit records, and how many it looks at. */
const SWEEP_EVERY_MS = 10 * 60_000;
const SWEEP_SCAN = 2_000;

/** A counter ('c'), window ('w') or lease ('l') record with nothing live left in it. */
function deadLimitRecord(key: string, value: unknown, now: number): boolean {
  const kind = key.charCodeAt(0);
  if (key.charCodeAt(1) !== 0) return false;
  if (kind === 0x63 /* c */ || kind === 0x77 /* w */) {
    const e = (value as { e?: unknown } | undefined)?.e;
    return typeof e === 'number' && e <= now;
  }
  if (kind === 0x6c /* l */) {
    const rec = leaseRecordOf(value);
    if (rec === undefined) return true;
    for (let i = 1; i < rec.length; i += 2) if ((rec[i] as number) > now) return false;
    return true;
  }
  return false;
}

export class FileStateStore implements StateStore {
  readonly backend = 'file' as const;
  private readonly path: string;
  /** Set once the database is open; until then every operation waits for `opened`. */
  private db: RootDatabase | undefined;
  /** The open in progress; cleared when it fails, so the next operation tries again. */
  private opening: Promise<RootDatabase> | undefined;
  private readonly now: () => number;
  private readonly boundOf: (ns: string) => number;
  private readonly ownerBoundOf: (ns: string) => number;
  private readonly io: AdmissionIo;
  private readonly subs = new Map<string, Subscription>();
  private timer: NodeJS.Timeout | undefined;
  private readonly pollMs: number;
  /** close() was called: new calls are refused. */
  private closing: Promise<void> | undefined;
  private closed = false;
  private readonly onError: StoreOptions['onError'];
  /** Limit calls waiting for this turn's shared write transaction (see `enqueue`). */
  private pending: PendingCall[] = [];
  /** A limit call ran in this event-loop turn: later ones of the turn wait for `endTurn`. */
  private turnOpen = false;
  private readonly cache = new Map<string, CachedRecord>();
  /** When the last sweep of dead limit records ran, and where the next one resumes. */
  private lastSweep = 0;
  private sweepFrom = 'c\0';

  constructor(options: FileStoreOptions) {
    this.path = options.path;
    this.now = options.now ?? Date.now;
    this.boundOf = namespaceBounds(options);
    this.ownerBoundOf = ownerBounds(options);
    this.pollMs = options.pollMs ?? POLL_MS;
    this.onError = options.onError;
    // Reads go through the transaction's record cache, writes stay in it until the transaction ends:
    // each record is decoded and encoded once per batch, however many calls of the batch touch it.
    const cached = (k: string): unknown => {
      const hit = this.cache.get(k);
      if (hit) return hit.value;
      const value = this.db!.get(k); // only inside a transaction, so the database is open
      this.cache.set(k, { value, dirty: false });
      return value;
    };
    const write = (k: string, value: unknown): void => {
      this.cache.set(k, { value, dirty: true });
    };
    this.io = {
      getWindow: (key) => (cached('w\0' + key) as { x: number[] } | undefined)?.x,
      setWindow: (key, entries, expiresAt) => write('w\0' + key, { x: entries, e: expiresAt }),
      getCounter: (key) => cached('c\0' + key) as CounterRecord | undefined,
      setCounter: (key, value) => write('c\0' + key, value),
      getLeases: (key) => {
        const k = 'l\0' + key;
        const raw = cached(k);
        const rec = leaseRecordOf(raw);
        // An older format converted once, so in-place edits of the batch land on the cached record.
        if (rec !== raw) this.cache.set(k, { value: rec, dirty: true });
        return rec;
      },
      setLeases: (key, value) => write('l\0' + key, value),
    };
    // Opening starts now, so it is usually done by the start-up ping; a failure surfaces there and
    // in each operation (StateUnavailableError), never as an unhandled rejection.
    this.open().catch(() => {});
  }

  /** The open database for `op`; a failure to open is the store's failure, reported as such. */
  private opened(op: string): Promise<RootDatabase> {
    return this.open().catch((err: unknown) => {
      throw this.failed(op, err);
    });
  }

  /** Opens the database (again, after a failed attempt); limit calls queued meanwhile go with it. */
  private open(): Promise<RootDatabase> {
    if (this.db) return Promise.resolve(this.db);
    if (!this.opening) {
      const attempt = openDatabase(this.path).then(
        (db) => {
          this.db = db;
          this.opening = undefined;
          this.adoptSubscriptions();
          // Limit calls that arrived while it opened: one batch, in arrival order.
          const waiting = this.pending;
          this.pending = [];
          if (waiting.length > 0) this.flush(waiting);
          return db;
        },
        (err: unknown) => {
          this.opening = undefined;
          const waiting = this.pending;
          this.pending = [];
          for (const call of waiting) this.fail(call.op, err, call.reject);
          throw err;
        },
      );
      this.opening = attempt;
    }
    return this.opening;
  }

  /**
   * Limit calls (admit, charge, release, settle): the first of an event-loop turn runs at once in its
   * own write transaction (no added latency when traffic is light); the ones arriving later in the
   * same turn share one transaction, run on setImmediate. Either way calls are evaluated one by one in
   * arrival order against the records as the previous call left them, so the result is exactly that
   * of one transaction per call; what a batch saves under load is the per-transaction cost and,
   * through the record cache, the decode and encode of records several calls touch (at saturation,
   * every call's key). A failed transaction fails every call of its batch (none is committed).
   */
  private enqueue<T>(op: string, fn: (now: number) => T): Promise<T> {
    if (this.closing) return Promise.reject(this.unavailable(op, new Error('closed')));
    return new Promise<T>((resolve, reject) => {
      const call: PendingCall = { op, fn, resolve: resolve as (v: unknown) => void, reject };
      if (!this.db) {
        // Flushed (or failed) together when the open in progress settles.
        this.pending.push(call);
        this.open().catch(() => {});
      } else if (!this.turnOpen) {
        this.turnOpen = true;
        setImmediate(this.endTurn);
        this.flush([call]);
      } else {
        this.pending.push(call);
      }
    });
  }

  private readonly endTurn = (): void => {
    this.turnOpen = false;
    if (this.pending.length === 0 || !this.db) return;
    const batch = this.pending;
    this.pending = [];
    this.flush(batch);
  };

  private flush(batch: PendingCall[]): void {
    if (this.closed) {
      for (const call of batch) call.reject(this.unavailable(call.op, new Error('closed')));
      return;
    }
    const db = this.db!; // flush runs only once the database is open
    const results: { ok: boolean; value: unknown }[] = [];
    try {
      db.transactionSync(() => {
        this.cache.clear();
        for (const call of batch) {
          try {
            results.push({ ok: true, value: call.fn(this.now()) });
          } catch (err) {
            // A call's own error (a bad check) fails that call only: the logic refuses before it writes.
            results.push({ ok: false, value: err });
          }
        }
        const now = this.now();
        if (now - this.lastSweep >= SWEEP_EVERY_MS) {
          this.lastSweep = now;
          this.sweepInto(db, now);
        }
        for (const [k, rec] of this.cache) {
          if (!rec.dirty) continue;
          if (rec.value === undefined) db.removeSync(k);
          else db.putSync(k, rec.value);
        }
      });
    } catch (err) {
      for (const call of batch) this.fail(call.op, err, call.reject);
      return;
    } finally {
      this.cache.clear();
    }
    for (let i = 0; i < batch.length; i++) {
      const r = results[i]!;
      if (r.ok) batch[i]!.resolve(r.value);
      else batch[i]!.reject(r.value);
    }
  }

  /**
   * Inside a limit transaction, now and then: mark dead limit records for removal — counters and
   * windows past their expiry, lease records whose every lease has lapsed. Spend counters are per
   * period, so without this every key, team and model would leave a record per day, week and month
   * in the file forever. Bounded: at most SWEEP_SCAN records looked at per sweep, resuming where the
   * last one stopped, so a large file costs one short pause per sweep, never a long one. Records a
   * call of this batch touched are left alone (the cache holds their newer value).
   */
  private sweepInto(db: RootDatabase, now: number): void {
    let scanned = 0;
    let next: string | undefined;
    for (const { key, value } of db.getRange({ start: this.sweepFrom, end: 'w\x01' })) {
      const k = key as string;
      if (scanned++ === SWEEP_SCAN) {
        next = k;
        break;
      }
      if (this.cache.has(k) || !deadLimitRecord(k, value, now)) continue;
      this.cache.set(k, { value: undefined, dirty: true });
    }
    this.sweepFrom = next ?? 'c\0';
  }

  private unavailable(op: string, err: unknown): StateUnavailableError {
    return new StateUnavailableError(op, `state store unavailable (file, ${op}): ${(err as Error).message}`, { cause: err });
  }

  /** A failure of the store (not of the call): reported to onError, as StateUnavailableError. */
  private failed(op: string, err: unknown): StateUnavailableError {
    const e = this.unavailable(op, err);
    this.onError?.(op, e);
    return e;
  }

  private fail(op: string, err: unknown, reject: (err: unknown) => void): void {
    reject(this.failed(op, err));
  }

  /** Runs `fn` on the open database (waiting for the open when needed), failures as unavailable. */
  private async run<T>(op: string, fn: (db: RootDatabase) => T): Promise<T> {
    if (this.closing) throw new StateUnavailableError(op, 'state store unavailable (file): closed');
    // No extra turn once open: `await` is reached only while the database is still opening.
    const db = this.db ?? (await this.opened(op));
    if (this.closed) throw new StateUnavailableError(op, 'state store unavailable (file): closed');
    try {
      return fn(db);
    } catch (err) {
      if (err instanceof RangeError && /exceeds the/.test(err.message)) throw err;
      throw this.failed(op, err);
    }
  }

  async getDoc(ns: string, id: string, owner: string): Promise<Uint8Array | undefined> {
    return this.run('get', (db) => {
      fresh(db);
      const doc = db.get(`d\0${ns}\0${id}`) as DocRecord | undefined;
      if (!doc || doc.o !== owner || doc.e <= this.now()) return undefined;
      return doc.v;
    });
  }

  async putDoc(ns: string, id: string, owner: string, value: Uint8Array, ttlMs: number): Promise<void> {
    const max = this.boundOf(ns);
    const ownerMax = this.ownerBoundOf(ns);
    const bytes = documentBytes(id, owner, value);
    if (bytes > ownerMax) throw tooLarge(ns, bytes, ownerMax);
    await this.run('put', (db) =>
      db.transactionSync(() => {
        const now = this.now();
        const metaKey = 'm\0' + ns;
        const meta = (db.get(metaKey) as NamespaceMeta | undefined) ?? { bytes: 0, seq: 0 };
        // Owners' bytes touched by this put, written once at the end.
        const ownerBytes = new Map<string, number>();
        const bytesOf = (o: string) => ownerBytes.get(o) ?? (db.get(`mo\0${ns}\0${o}`) as number | undefined) ?? 0;
        const remove = (docId: string, doc: DocRecord) => {
          db.removeSync(`d\0${ns}\0${docId}`);
          db.removeSync(`o\0${ns}\0${pad(doc.s)}`);
          db.removeSync(`oo\0${ns}\0${doc.o}\0${pad(doc.s)}`);
          meta.bytes -= doc.b;
          ownerBytes.set(doc.o, Math.max(0, bytesOf(doc.o) - doc.b));
        };
        const docKey = `d\0${ns}\0${id}`;
        const old = db.get(docKey) as DocRecord | undefined;
        if (old) remove(id, old);
        const seq = ++meta.seq;
        db.putSync(docKey, { o: owner, e: now + ttlMs, b: bytes, s: seq, v: value } satisfies DocRecord);
        db.putSync(`o\0${ns}\0${pad(seq)}`, id);
        db.putSync(`oo\0${ns}\0${owner}\0${pad(seq)}`, id);
        meta.bytes += bytes;
        ownerBytes.set(owner, bytesOf(owner) + bytes);
        // The owner's own oldest first, down to its share (this document alone fits, so it stays).
        const mine = `oo\0${ns}\0${owner}\0`;
        for (const { key, value: oldId } of db.getRange({ start: mine, end: `oo\0${ns}\0${owner}\x01` })) {
          if (bytesOf(owner) <= ownerMax) break;
          const doc = db.get(`d\0${ns}\0${oldId as string}`) as DocRecord | undefined;
          if (doc && doc.o === owner && pad(doc.s) === (key as string).slice(mine.length)) remove(oldId as string, doc);
          else db.removeSync(key); // left behind by a rewrite
        }
        // Then the namespace's oldest written: expired ones and whatever is needed to get back under the bound.
        const prefix = `o\0${ns}\0`;
        for (const { key, value: oldId } of db.getRange({ start: prefix, end: `o\0${ns}\x01` })) {
          const k = `d\0${ns}\0${oldId as string}`;
          const doc = db.get(k) as DocRecord | undefined;
          if (doc && meta.bytes <= max && doc.e > now) break;
          if (doc) remove(oldId as string, doc);
          else db.removeSync(key);
        }
        db.putSync(metaKey, meta);
        for (const [o, b] of ownerBytes) {
          if (b > 0) db.putSync(`mo\0${ns}\0${o}`, b);
          else db.removeSync(`mo\0${ns}\0${o}`);
        }
      }),
    );
  }

  async deleteDoc(ns: string, id: string, owner: string): Promise<boolean> {
    return this.run('delete', (db) =>
      db.transactionSync(() => {
        const docKey = `d\0${ns}\0${id}`;
        const doc = db.get(docKey) as DocRecord | undefined;
        if (!doc || doc.o !== owner) return false;
        const meta = db.get('m\0' + ns) as NamespaceMeta;
        meta.bytes -= doc.b;
        db.removeSync(docKey);
        db.removeSync(`o\0${ns}\0${pad(doc.s)}`);
        db.removeSync(`oo\0${ns}\0${owner}\0${pad(doc.s)}`);
        db.putSync('m\0' + ns, meta);
        const ownerKey = `mo\0${ns}\0${owner}`;
        const left = ((db.get(ownerKey) as number | undefined) ?? 0) - doc.b;
        if (left > 0) db.putSync(ownerKey, left);
        else db.removeSync(ownerKey);
        return doc.e > this.now();
      }),
    );
  }

  async claim(ns: string, ids: readonly string[], owner: string, ttlMs: number): Promise<void> {
    await this.run('put', (db) =>
      db.transactionSync(() => {
        const now = this.now();
        // A few expired claims leave on every call, oldest expiry first.
        let swept = 0;
        for (const { key, value: k } of db.getRange({ start: 'ke\0', end: 'ke\0' + pad(now) })) {
          if (swept++ >= CLAIM_SWEEP) break;
          db.removeSync(key);
          const held = db.get(k as string) as ClaimRecord | undefined;
          if (held && held.e <= now) db.removeSync(k as string);
        }
        const expiresAt = now + ttlMs;
        for (const id of ids) {
          const k = `k\0${ns}\0${id}`;
          const held = db.get(k) as ClaimRecord | undefined;
          if (held && held.e > now && held.o !== owner) continue;
          if (held) db.removeSync(`ke\0${pad(held.e)}\0${ns}\0${id}`);
          db.putSync(k, { o: owner, e: expiresAt } satisfies ClaimRecord);
          db.putSync(`ke\0${pad(expiresAt)}\0${ns}\0${id}`, k);
        }
      }),
    );
  }

  async claimOwners(ns: string, ids: readonly string[]): Promise<(string | undefined)[]> {
    return this.run('get', (db) => {
      fresh(db);
      const now = this.now();
      return ids.map((id) => {
        const held = db.get(`k\0${ns}\0${id}`) as ClaimRecord | undefined;
        return held && held.e > now ? held.o : undefined;
      });
    });
  }

  admit(checks: readonly AdmissionCheck[]): Promise<AdmissionResult> {
    return this.enqueue('admit', (now) => admitChecks(checks, now, this.io));
  }

  async inspect(checks: readonly AdmissionCheck[]): Promise<CheckState[]> {
    return this.run('inspect', (db) => {
      fresh(db);
      try {
        return inspectChecks(checks, this.now(), this.io);
      } finally {
        this.cache.clear(); // outside a batch the cache only spares repeated reads of this call
      }
    });
  }

  async charge(charges: readonly Charge[]): Promise<void> {
    await this.enqueue('charge', (now) => applyCharges(charges, now, this.io));
  }

  async release(leases: readonly Lease[]): Promise<void> {
    await this.enqueue('release', (now) => releaseLeases(leases, now, this.io));
  }

  async settle(charges: readonly Charge[], leases: readonly Lease[]): Promise<void> {
    // Releases and charges in one call of the batch: both commit or neither (a disk failure fails
    // both, and the leases then expire by themselves). Reported as 'charge' to onError, keeping the
    // documented set of ops.
    await this.enqueue('charge', (now) => {
      releaseLeases(leases, now, this.io);
      applyCharges(charges, now, this.io);
    });
  }

  async readCounters(keys: readonly string[]): Promise<number[]> {
    return this.run('read_counters', (db) => {
      fresh(db);
      const now = this.now();
      return keys.map((k) => counterValue(db.get('c\0' + k) as CounterRecord | undefined, now));
    });
  }

  // Records: `r\0<id>` each record, `rv` their version, `ra\0<seq>` the audit entries (`ras` the last seq),
  // `rc\0<version>` the ids each write touched (the last RECORD_CHANGES_KEEP writes).
  async readRecords(): Promise<RecordSnapshot> {
    return this.run('records', (db) => {
      fresh(db);
      // One read transaction: the version and the records are of the same commit.
      const version = (db.get('rv') as number | undefined) ?? 0;
      const records = new Map<string, string>();
      for (const { key, value } of db.getRange({ start: 'r\0', end: 'r\x01' })) records.set((key as string).slice(2), value as string);
      return { version, records };
    });
  }

  async recordsVersion(): Promise<number> {
    return this.run('records', (db) => {
      fresh(db);
      return (db.get('rv') as number | undefined) ?? 0;
    });
  }

  async readRecordChanges(since: number): Promise<RecordChanges | undefined> {
    return this.run('records', (db) => {
      fresh(db);
      // One read transaction, as readRecords: the version, the change list and the values agree.
      const version = (db.get('rv') as number | undefined) ?? 0;
      const log: { version: number; ids: string[] }[] = [];
      if (since >= 0 && since < version && version - since <= RECORD_CHANGES_KEEP) {
        for (const { key, value } of db.getRange({ start: 'rc\0' + pad(since + 1), end: 'rc\x01' })) log.push({ version: parseInt((key as string).slice(3), 36), ids: value as string[] });
      }
      const ids = changedIdsSince(since, version, log);
      if (ids === undefined) return undefined;
      return { version, changes: new Map(ids.map((id) => [id, (db.get('r\0' + id) as string | undefined) ?? null])) };
    });
  }

  async writeRecords(writes: readonly RecordWrite[], audit: string): Promise<RecordWriteResult> {
    return this.run('records', (db) =>
      db.transactionSync(() => {
        const io = {
          get: (id: string) => db.get('r\0' + id) as string | undefined,
          put: (id: string, v: string) => void db.putSync('r\0' + id, v),
          remove: (id: string) => void db.removeSync('r\0' + id),
        };
        const result = applyRecordWrites(writes, io, (db.get('rv') as number | undefined) ?? 0);
        if (!result.ok) return result;
        db.putSync('rv', result.version);
        db.putSync('rc\0' + pad(result.version), writes.map((w) => w.id));
        if (result.version > RECORD_CHANGES_KEEP) db.removeSync('rc\0' + pad(result.version - RECORD_CHANGES_KEEP));
        const seq = ((db.get('ras') as number | undefined) ?? 0) + 1;
        db.putSync('ras', seq);
        db.putSync('ra\0' + pad(seq), audit);
        if (seq > AUDIT_KEEP) db.removeSync('ra\0' + pad(seq - AUDIT_KEEP));
        return result;
      }),
    );
  }

  async readAudit(limit: number): Promise<string[]> {
    return this.run('records', (db) => {
      fresh(db);
      const out: string[] = [];
      for (const { value } of db.getRange({ start: 'ra\x01', end: 'ra\0', reverse: true, limit: Math.max(0, limit) })) out.push(value as string);
      return out;
    });
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.run('publish', (db) =>
      db.transactionSync(() => {
        const seq = ((db.get('ps\0' + channel) as number | undefined) ?? 0) + 1;
        db.putSync('ps\0' + channel, seq);
        db.putSync(`pm\0${channel}\0${pad(seq)}`, { t: this.now(), m: message } satisfies StoredMessage);
        if (seq > KEEP_MESSAGES) db.removeSync(`pm\0${channel}\0${pad(seq - KEEP_MESSAGES)}`);
      }),
    );
  }

  subscribe(channel: string, onMessage: (message: string) => void): () => void {
    let sub = this.subs.get(channel);
    if (!sub) {
      this.subs.set(channel, (sub = { last: UNSET, since: this.now(), fns: new Set() }));
      if (this.db) this.adopt(this.db, channel, sub, false);
    }
    const fn = (m: string) => onMessage(m);
    sub.fns.add(fn);
    if (!this.timer && !this.closing) {
      this.timer = setInterval(() => this.poll(), this.pollMs);
      this.timer.unref();
    }
    return () => {
      sub.fns.delete(fn);
      if (sub.fns.size === 0) this.subs.delete(channel);
      if (this.subs.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
    };
  }

  /**
   * A subscription hears what is published from when it was made: it starts at the channel's current
   * number, or, when it was made before the database was open, before the first message published
   * since (another process may have published while this one was still loading lmdb).
   */
  private adopt(db: RootDatabase, channel: string, sub: Subscription, early: boolean): void {
    try {
      const seq = (db.get('ps\0' + channel) as number | undefined) ?? 0;
      let last = seq;
      if (early) {
        const prefix = `pm\0${channel}\0`;
        const from = Math.max(1, seq - KEEP_MESSAGES + 1);
        for (const { key, value } of db.getRange({ start: prefix + pad(from), end: prefix + pad(seq + 1) })) {
          if (typeof value === 'object' && (value as { t: number }).t >= sub.since) {
            last = parseInt((key as string).slice(prefix.length), 36) - 1;
            break;
          }
        }
      }
      sub.last = last;
    } catch (err) {
      this.failed('subscribe', err); // left unset: the next poll that reads the channel adopts it
    }
  }

  private adoptSubscriptions(): void {
    for (const [channel, sub] of this.subs) if (sub.last === UNSET) this.adopt(this.db!, channel, sub, true);
  }

  private poll(): void {
    const db = this.db;
    if (this.closed || !db) return;
    try {
      fresh(db);
      for (const [channel, sub] of this.subs) {
        const seq = (db.get('ps\0' + channel) as number | undefined) ?? 0;
        if (sub.last === UNSET) {
          sub.last = seq;
          continue;
        }
        if (seq <= sub.last) continue;
        const from = Math.max(sub.last + 1, seq - KEEP_MESSAGES + 1);
        const messages: string[] = [];
        for (const { value } of db.getRange({ start: `pm\0${channel}\0${pad(from)}`, end: `pm\0${channel}\0${pad(seq + 1)}` })) {
          messages.push(messageText(value as StoredMessage));
        }
        sub.last = seq;
        for (const m of messages) for (const fn of sub.fns) fn(m);
      }
    } catch {
      // A failed poll is retried on the next tick; broadcast is best effort by contract.
    }
  }

  async ping(): Promise<void> {
    await this.run('ping', (db) => db.get('ps\0ping'));
  }

  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private async shutDown(): Promise<void> {
    // An open in progress finishes first, so the limit calls waiting for it commit, not drop.
    if (this.opening) await this.opening.catch(() => {});
    this.endTurn(); // calls already accepted are committed, not dropped
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.subs.clear();
    await this.db?.close();
  }
}
