// Admission arithmetic shared by the in-process backends (memory, file). The Redis backend runs the
// same rules in Lua (redis-scripts.ts); the contract suite holds all three to one behaviour.
//
// Representations: a window is a flat, time-ordered array [t0, amount0, t1, amount1, …] of what was
// recorded (a sliding log, exact at any instant); a counter is {v, e} (value, expiry in ms epoch);
// leases are {leaseId: expiresAt}.
import { randomBytes } from 'node:crypto';
import type { AdmissionCheck, AdmissionResult, Charge, CheckState, Lease } from './types.js';

export interface CounterRecord {
  v: number;
  e: number;
}
export type LeaseRecord = Record<string, number>;

/** Storage the logic reads and writes; the caller makes a whole admit one atomic unit. */
export interface AdmissionIo {
  getWindow(key: string): number[] | undefined;
  setWindow(key: string, entries: number[], expiresAt: number): void;
  getCounter(key: string): CounterRecord | undefined;
  setCounter(key: string, value: CounterRecord): void;
  getLeases(key: string): LeaseRecord | undefined;
  setLeases(key: string, leases: LeaseRecord | undefined): void;
}

/** Entries of a window still inside it at `now` (an entry recorded at t counts while t > now - windowMs). */
export function liveWindow(entries: number[] | undefined, now: number, windowMs: number): number[] {
  if (!entries || entries.length === 0) return [];
  const from = now - windowMs;
  let i = 0;
  while (i < entries.length && entries[i]! <= from) i += 2;
  return i === 0 ? entries : entries.slice(i);
}

function windowSum(entries: number[]): number {
  let sum = 0;
  for (let i = 1; i < entries.length; i += 2) sum += entries[i]!;
  return sum;
}

/** Milliseconds until a window would admit `cost`: entries leave oldest first. */
function windowRetry(entries: number[], used: number, limit: number, cost: number, now: number, windowMs: number): number {
  if (cost > limit) return windowMs; // never passes; a full window is the honest upper bound
  let sum = used;
  for (let i = 0; i < entries.length; i += 2) {
    sum -= entries[i + 1]!;
    if (sum < limit && sum + cost <= limit) return Math.max(0, entries[i]! + windowMs - now);
  }
  return 0;
}

function liveLeases(leases: LeaseRecord | undefined, now: number): { live: LeaseRecord; count: number; earliest: number } {
  const live: LeaseRecord = {};
  let count = 0;
  let earliest = Infinity;
  if (leases) {
    for (const id in leases) {
      const exp = leases[id]!;
      if (exp > now) {
        live[id] = exp;
        count++;
        if (exp < earliest) earliest = exp;
      }
    }
  }
  return { live, count, earliest };
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
      const resetMs = entries.length > 0 ? Math.max(0, entries[0]! + check.windowMs - now) : 0;
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
      const { count, earliest } = liveLeases(io.getLeases(check.key), now);
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

export function newLeaseId(): string {
  return randomBytes(9).toString('base64url');
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
      const { live } = liveLeases(io.getLeases(check.key), now);
      const id = newLeaseId();
      live[id] = now + check.leaseMs;
      io.setLeases(check.key, live);
      leases.push({ key: check.key, id });
    }
  }
  return { ok: true, states, leases };
}

function appendWindow(io: AdmissionIo, key: string, windowMs: number, amount: number, now: number): void {
  const raw = io.getWindow(key);
  const live = liveWindow(raw, now, windowMs);
  const next = live === raw ? live.slice() : live;
  // Keep time order even if a clock stepped back: insert before later entries.
  let at = next.length;
  while (at > 0 && next[at - 2]! > now) at -= 2;
  next.splice(at, 0, now, amount);
  io.setWindow(key, next, now + windowMs);
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
    if (!cur || !(l.id in cur)) continue;
    const { live } = liveLeases(cur, now);
    delete live[l.id];
    io.setLeases(l.key, Object.keys(live).length > 0 ? live : undefined);
  }
}

export function counterValue(c: CounterRecord | undefined, now: number): number {
  return c && c.e > now ? c.v : 0;
}
