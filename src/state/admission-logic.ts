// Admission arithmetic shared by the in-process backends (memory, file). The Redis backend runs the
// same rules in Lua (redis-scripts.ts); the contract suite holds all three to one behaviour.
//
// Representations: a window is a flat array [bucket0, sum0, bucket1, sum1, …] in bucket order, each
// bucket 1/60 of the window wide (bounded work per call, whatever the traffic); a counter is {v, e}
// (value, expiry in ms epoch); leases are a flat array [leaseId0, expiresAt0, leaseId1, …] (an object
// keyed by random lease ids made msgpack define a new record structure on nearly every write). The
// records the io hands out belong to the atomic unit that reads them (memory: the stored array itself;
// file: a fresh decode), so the writers edit them in place rather than copying per request.
import { randomBytes } from 'node:crypto';
import type { AdmissionCheck, AdmissionResult, Charge, CheckState, Lease } from './types.js';

export interface CounterRecord {
  v: number;
  e: number;
}
export type LeaseRecord = (string | number)[];

/** Storage the logic reads and writes; the caller makes a whole admit one atomic unit. */
export interface AdmissionIo {
  getWindow(key: string): number[] | undefined;
  setWindow(key: string, entries: number[], expiresAt: number): void;
  getCounter(key: string): CounterRecord | undefined;
  setCounter(key: string, value: CounterRecord): void;
  getLeases(key: string): LeaseRecord | undefined;
  setLeases(key: string, leases: LeaseRecord | undefined): void;
}

/** Width of a window's buckets: 1/60 of the window (one second for a minute), at least 1 ms. A key is
 * always used with one window length, so its buckets never change width. */
export function bucketMs(windowMs: number): number {
  return Math.max(1, Math.ceil(windowMs / 60));
}

/**
 * When a bucket's amounts stop counting: as if all were recorded at its last millisecond. So an amount
 * counts for at least windowMs and at most one bucket longer — never less, so no stretch of windowMs
 * ever holds more than the limit.
 */
export function leavesAt(bucket: number, width: number, windowMs: number): number {
  return (bucket + 1) * width - 1 + windowMs;
}

/** Buckets of a window that still count at `now`. */
export function liveWindow(entries: number[] | undefined, now: number, windowMs: number): number[] {
  if (!entries || entries.length === 0) return [];
  const width = bucketMs(windowMs);
  let i = 0;
  while (i < entries.length && leavesAt(entries[i]!, width, windowMs) <= now) i += 2;
  return i === 0 ? entries : entries.slice(i);
}

function windowSum(entries: number[]): number {
  let sum = 0;
  for (let i = 1; i < entries.length; i += 2) sum += entries[i]!;
  return sum;
}

/** Milliseconds until a window would admit `cost`: buckets leave oldest first. */
function windowRetry(entries: number[], used: number, limit: number, cost: number, now: number, windowMs: number): number {
  if (cost > limit) return windowMs; // never passes; a full window is the honest upper bound
  const width = bucketMs(windowMs);
  let sum = used;
  for (let i = 0; i < entries.length; i += 2) {
    sum -= entries[i + 1]!;
    if (sum < limit && sum + cost <= limit) return Math.max(0, leavesAt(entries[i]!, width, windowMs) - now);
  }
  return 0;
}

/** Live leases and the earliest expiry, without copying (admission's hot path: one call per check). */
function leaseStats(leases: LeaseRecord | undefined, now: number): { count: number; earliest: number } {
  let count = 0;
  let earliest = Infinity;
  if (leases) {
    for (let i = 1; i < leases.length; i += 2) {
      const exp = leases[i] as number;
      if (exp > now) {
        count++;
        if (exp < earliest) earliest = exp;
      }
    }
  }
  return { count, earliest };
}

/** Drops expired leases (and `drop`, when given) from a record the caller owns for this atomic unit,
 * compacting it in place; returns how many remain. */
function pruneLeases(leases: LeaseRecord, now: number, drop?: string): number {
  let w = 0;
  for (let r = 0; r + 1 < leases.length; r += 2) {
    const id = leases[r]!;
    const exp = leases[r + 1] as number;
    if (exp <= now || id === drop) continue;
    leases[w++] = id;
    leases[w++] = exp;
  }
  leases.length = w;
  return w / 2;
}

/** A record of the format before flat arrays ({leaseId: expiresAt}), read from an older file store. */
export function leaseRecordOf(value: unknown): LeaseRecord | undefined {
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value)) return value as LeaseRecord;
  const out: LeaseRecord = [];
  for (const [id, exp] of Object.entries(value as Record<string, number>)) out.push(id, exp);
  return out;
}

interface Evaluated {
  state: CheckState;
  pass: boolean;
  retryAfterMs: number;
}

function evaluate(check: AdmissionCheck, now: number, io: AdmissionIo): Evaluated {
  switch (check.kind) {
    case 'window': {
      const entries = liveWindow(io.getWindow(check.key), now, check.windowMs);
      const used = windowSum(entries);
      const resetMs = entries.length > 0 ? Math.max(0, leavesAt(entries[0]!, bucketMs(check.windowMs), check.windowMs) - now) : 0;
      const pass = used < check.limit && used + check.cost <= check.limit;
      return {
        state: { used, limit: check.limit, resetMs },
        pass,
        retryAfterMs: pass ? 0 : windowRetry(entries, used, check.limit, check.cost, now, check.windowMs),
      };
    }
    case 'counter': {
      const c = io.getCounter(check.key);
      const live = c && c.e > now ? c : undefined;
      const used = live?.v ?? 0;
      const resetMs = live ? live.e - now : 0;
      const pass = used < check.limit;
      return { state: { used, limit: check.limit, resetMs }, pass, retryAfterMs: pass ? 0 : resetMs };
    }
    case 'concurrency': {
      const { count, earliest } = leaseStats(io.getLeases(check.key), now);
      const resetMs = count > 0 ? earliest - now : 0;
      const pass = count < check.limit;
      return { state: { used: count, limit: check.limit, resetMs }, pass, retryAfterMs: pass ? 0 : resetMs };
    }
    default: {
      const never: never = check;
      throw new Error(`unknown admission check ${(never as { kind: string }).kind}`);
    }
  }
}

export function inspectChecks(checks: readonly AdmissionCheck[], now: number, io: AdmissionIo): CheckState[] {
  return checks.map((c) => evaluate(c, now, io).state);
}

// A lease id only has to be unique among a key's leases, across every process sharing the store: a
// random prefix per process and a counter do that without a random draw per admission (randomBytes
// was ~4 µs of the client's CPU per admission on Redis).
const LEASE_PREFIX = randomBytes(9).toString('base64url') + '.';
let leaseSeq = 0;

export function newLeaseId(): string {
  return LEASE_PREFIX + (leaseSeq++).toString(36);
}

/** Evaluates every check; when all pass, records costs and takes leases. Call inside one atomic unit. */
export function admitChecks(checks: readonly AdmissionCheck[], now: number, io: AdmissionIo): AdmissionResult {
  const states: CheckState[] = [];
  let failed = -1;
  let retryAfterMs = 0;
  for (let i = 0; i < checks.length; i++) {
    const e = evaluate(checks[i]!, now, io);
    states.push(e.state);
    if (!e.pass) {
      if (failed < 0) failed = i;
      // Every refused check must pass before the whole admission can: wait for the slowest.
      retryAfterMs = Math.max(retryAfterMs, e.retryAfterMs);
    }
  }
  if (failed >= 0) return { ok: false, states, failed, retryAfterMs };
  const leases: Lease[] = [];
  for (const check of checks) {
    if (check.kind === 'window') {
      if (check.cost > 0) appendWindow(io, check.key, check.windowMs, check.cost, now);
    } else if (check.kind === 'concurrency') {
      const live = io.getLeases(check.key) ?? [];
      pruneLeases(live, now);
      const id = newLeaseId();
      live.push(id, now + check.leaseMs);
      io.setLeases(check.key, live);
      leases.push({ key: check.key, id });
    }
  }
  return { ok: true, states, leases };
}

function appendWindow(io: AdmissionIo, key: string, windowMs: number, amount: number, now: number): void {
  const width = bucketMs(windowMs);
  const bucket = Math.floor(now / width);
  const raw = io.getWindow(key);
  const live = liveWindow(raw, now, windowMs);
  const next = live === raw ? live.slice() : live;
  // Usually the last bucket or a new one at the end; a clock that stepped back finds its place.
  let at = next.length;
  while (at > 0 && next[at - 2]! > bucket) at -= 2;
  if (at > 0 && next[at - 2] === bucket) next[at - 1]! += amount;
  else next.splice(at, 0, bucket, amount);
  io.setWindow(key, next, leavesAt(next[next.length - 2]!, width, windowMs));
}

export function applyCharges(charges: readonly Charge[], now: number, io: AdmissionIo): void {
  for (const c of charges) {
    if (c.kind === 'window') {
      if (c.amount !== 0) appendWindow(io, c.key, c.windowMs, c.amount, now);
    } else {
      const cur = io.getCounter(c.key);
      if (cur && cur.e > now) io.setCounter(c.key, { v: cur.v + c.amount, e: cur.e });
      else io.setCounter(c.key, { v: c.amount, e: now + c.ttlMs });
    }
  }
}

export function releaseLeases(leases: readonly Lease[], now: number, io: AdmissionIo): void {
  for (const l of leases) {
    const cur = io.getLeases(l.key);
    if (!cur || !cur.includes(l.id)) continue;
    io.setLeases(l.key, pruneLeases(cur, now, l.id) > 0 ? cur : undefined);
  }
}

export function counterValue(c: CounterRecord | undefined, now: number): number {
  return c && c.e > now ? c.v : 0;
}
