// The shared-state contract: one interface, three backends (memory: one process; file: an embedded
// store on local disk shared by the workers of one machine; redis: several instances). The Responses
// store keeps documents here; per-key rate limits, concurrency and budgets keep counters here.
// Every backend passes the same contract suite (test/unit/state/contract.ts).
//
// Time: backends read their own clock (Redis: the server's TIME, so instances on several machines
// agree; memory/file: Date.now()), injectable in tests through each backend's options.

export type StateBackendName = 'memory' | 'file' | 'redis';

/** Raised (or rejected with) when the backend cannot be reached or fails; callers map it to 503. */
export class StateUnavailableError extends Error {
  constructor(
    readonly op: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StateUnavailableError';
  }
}

/** A namespace of documents (e.g. `responses`): bounded in bytes, oldest written evicted first. */
export interface DocumentNamespace {
  name: string;
  maxBytes: number;
  /** The most one owner's documents may take (default: `maxBytes`): a put beyond it evicts that
   * owner's own oldest first, so one owner cannot push everyone else's documents out. */
  ownerMaxBytes?: number;
}

// ---- Admission: rate limits, concurrency, budgets --------------------------------------------------

/**
 * A sliding window over the last `windowMs`: the sum of the amounts recorded in it. Passes when
 * `sum < limit && sum + cost <= limit`; on admission `cost` is recorded now (cost 0 records nothing:
 * "is this window exhausted?", as for tokens that are charged after the answer).
 */
export interface WindowCheck {
  kind: 'window';
  key: string;
  windowMs: number;
  limit: number;
  cost: number;
}

/** A counter for a fixed period (a budget): passes when `value < limit`. Never changed by admit. */
export interface CounterCheck {
  kind: 'counter';
  key: string;
  limit: number;
}

/** Concurrent leases: passes when live leases < limit; admission takes one that lives `leaseMs` at most. */
export interface ConcurrencyCheck {
  kind: 'concurrency';
  key: string;
  limit: number;
  leaseMs: number;
}

export type AdmissionCheck = WindowCheck | CounterCheck | ConcurrencyCheck;

/** What a check saw, for rate-limit headers and the usage view. */
export interface CheckState {
  /** Window sum, counter value, or live leases — before this admission's cost. */
  used: number;
  limit: number;
  /** Milliseconds until capacity next grows (window: the oldest entry leaves; counter: 0 = unknown). */
  resetMs: number;
}

export interface Lease {
  key: string;
  id: string;
}

export type AdmissionResult =
  | { ok: true; states: CheckState[]; leases: Lease[] }
  /** `failed`: index of the first check that refused; `retryAfterMs`: when every refusing check would
   * pass (≥ 0; the slowest one's wait). */
  | { ok: false; states: CheckState[]; failed: number; retryAfterMs: number };

export type Charge =
  | { kind: 'window'; key: string; windowMs: number; amount: number }
  /** Adds to a period counter that expires `ttlMs` from now unless it already exists. */
  | { kind: 'counter'; key: string; amount: number; ttlMs: number };

// ---- Records: runtime keys and teams (access/runtime-keys.ts) ----------------------------------------

/**
 * One change to a record. `value` null deletes it. `expect`: absent = unconditional; null = the record
 * must not exist (a create); a string = the record must hold exactly that (an update of what was read).
 */
export interface RecordWrite {
  id: string;
  value: string | null;
  expect?: string | null;
}

export type RecordWriteResult =
  /** `version`: the records' version after this write. */
  | { ok: true; version: number }
  /** `failed`: index of the first write whose expectation did not hold; nothing was written. */
  | { ok: false; failed: number; current: string | null };

export interface RecordSnapshot {
  version: number;
  records: Map<string, string>;
}

/** The records changed after a version: each changed id's value now (null: deleted since). */
export interface RecordChanges {
  version: number;
  changes: Map<string, string | null>;
}

/** How many audit entries the store keeps (the oldest leave first). */
export const AUDIT_KEEP = 1000;
/** How many writes' changed ids the store keeps for readRecordChanges (the oldest leave first). */
export const RECORD_CHANGES_KEEP = 1000;

// ---- The store ------------------------------------------------------------------------------------

export interface StateStore {
  readonly backend: StateBackendName;

  /** A stored document, or undefined when absent, expired, or owned by someone else. */
  getDoc(ns: string, id: string, owner: string): Promise<Uint8Array | undefined>;
  /** Stores (or replaces) a document for `ttlMs`; evicts the namespace's oldest beyond its byte bound.
   * A document larger than the whole bound is refused with a RangeError (nothing else is evicted). */
  putDoc(ns: string, id: string, owner: string, value: Uint8Array, ttlMs: number): Promise<void>;
  /** True when a live document of this owner was deleted (false for absent, expired, another owner's). */
  deleteDoc(ns: string, id: string, owner: string): Promise<boolean>;

  /** Claims ids for `owner` for `ttlMs`: tiny records kept apart from the documents (outside every byte
   * bound, never evicted, never removed by deleteDoc), that say whose an id is. A live claim is never
   * transferred: claiming another owner's id changes nothing; the same owner's claim gets the new TTL. */
  claim(ns: string, ids: readonly string[], owner: string, ttlMs: number): Promise<void>;
  /** The owner of each id's live claim, in order; undefined for an id nobody claimed (or expired). */
  claimOwners(ns: string, ids: readonly string[]): Promise<(string | undefined)[]>;

  /** All checks pass and are charged together, or none is charged (atomic across processes). */
  admit(checks: readonly AdmissionCheck[]): Promise<AdmissionResult>;
  /** States of the checks without charging anything (the usage view). */
  inspect(checks: readonly AdmissionCheck[]): Promise<CheckState[]>;
  /** Records amounts without checking (tokens when an answer ends, spend). */
  charge(charges: readonly Charge[]): Promise<void>;
  /** Gives back concurrency leases taken by admit. */
  release(leases: readonly Lease[]): Promise<void>;
  /** After an answer: charge() and release() in one call (one transaction on the file backend, one
   * script call on Redis). Leases are given back first, so a failing charge does not keep them
   * (file: both commit or neither; leases left behind expire by themselves). */
  settle(charges: readonly Charge[], leases: readonly Lease[]): Promise<void>;
  /** Current values of period counters (spend); 0 for absent ones. */
  readCounters(keys: readonly string[]): Promise<number[]>;

  /** Every record and their version (one read, one consistent state). */
  readRecords(): Promise<RecordSnapshot>;
  /** The records' version alone: a poll that changes nothing costs one small read. 0 before any write. */
  recordsVersion(): Promise<number>;
  /** What changed after version `since`, read in one consistent state: the ids the writes since then
   * touched, with their values now. Undefined when the store cannot say (more than RECORD_CHANGES_KEEP
   * writes ago, `since` ahead of the store, or a write that kept no change list, as before this
   * existed): read everything then. A poller with 10,000 records reads one changed record, not all. */
  readRecordChanges(since: number): Promise<RecordChanges | undefined>;
  /** All writes land together with `audit` appended to the audit list (last AUDIT_KEEP kept), and
   * the version incremented once — or, when any expectation fails, nothing changes (atomic across
   * processes). */
  writeRecords(writes: readonly RecordWrite[], audit: string): Promise<RecordWriteResult>;
  /** The newest `limit` audit entries, newest first. */
  readAudit(limit: number): Promise<string[]>;

  /** Small broadcast messages between every process sharing the store (circuit state), the publishing
   * process's own subscribers included. Best effort: a message sent while a backend is away is lost. */
  publish(channel: string, message: string): Promise<void>;
  subscribe(channel: string, onMessage: (message: string) => void): () => void;

  /** Health: resolves when the backend answers; rejects with StateUnavailableError otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
