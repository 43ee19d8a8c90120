// A small in-test StateStore for the access unit tests only: the admission half of the contract in
// src/state/types.ts (windows, counters, leases) on one process, with a clock the test moves. The
// real backends (memory, file, redis) come from the shared-state work and pass their own suite.
import type { AdmissionCheck, AdmissionResult, CheckState, Charge, Lease, StateStore } from '../../../src/state/types.js';

export class TinyStateStore implements StateStore {
  readonly backend = 'memory' as const;
  now = 1_000_000;
  readonly windows = new Map<string, { t: number; amount: number }[]>();
  readonly counters = new Map<string, number>();
  readonly leases = new Map<string, Map<string, number>>();
  /** Every call, for asserting what the access layer asked for. */
  readonly calls: { op: string; arg: unknown }[] = [];
  private nextLease = 0;

  async admit(checks: readonly AdmissionCheck[]): Promise<AdmissionResult> {
    this.calls.push({ op: 'admit', arg: checks });
    const states = checks.map((c) => this.state(c));
    for (let i = 0; i < checks.length; i++) {
      const c = checks[i]!;
      const s = states[i]!;
      const pass = c.kind === 'window' ? s.used < c.limit && s.used + c.cost <= c.limit : s.used < c.limit;
      if (!pass) return { ok: false, states, failed: i, retryAfterMs: c.kind === 'counter' ? 0 : Math.max(s.resetMs, 1) };
    }
    const leases: Lease[] = [];
    for (const c of checks) {
      if (c.kind === 'window' && c.cost > 0) this.entries(c.key, c.windowMs).push({ t: this.now, amount: c.cost });
      if (c.kind === 'concurrency') {
        const id = String(++this.nextLease);
        this.live(c.key).set(id, this.now + c.leaseMs);
        leases.push({ key: c.key, id });
      }
    }
    return { ok: true, states, leases };
  }

  async inspect(checks: readonly AdmissionCheck[]): Promise<CheckState[]> {
    this.calls.push({ op: 'inspect', arg: checks });
    return checks.map((c) => this.state(c));
  }

  async charge(charges: readonly Charge[]): Promise<void> {
    this.calls.push({ op: 'charge', arg: charges });
    for (const c of charges) {
      if (c.kind === 'window') this.entries(c.key, c.windowMs).push({ t: this.now, amount: c.amount });
      else this.counters.set(c.key, (this.counters.get(c.key) ?? 0) + c.amount);
    }
  }

  async release(leases: readonly Lease[]): Promise<void> {
    this.calls.push({ op: 'release', arg: leases });
    for (const l of leases) this.leases.get(l.key)?.delete(l.id);
  }

  async settle(charges: readonly Charge[], leases: readonly Lease[]): Promise<void> {
    await this.release(leases);
    await this.charge(charges);
  }

  async readCounters(keys: readonly string[]): Promise<number[]> {
    this.calls.push({ op: 'readCounters', arg: keys });
    return keys.map((k) => this.counters.get(k) ?? 0);
  }

  private state(c: AdmissionCheck): CheckState {
    if (c.kind === 'window') {
      const e = this.entries(c.key, c.windowMs);
      const used = e.reduce((sum, x) => sum + x.amount, 0);
      return { used, limit: c.limit, resetMs: e.length ? e[0]!.t + c.windowMs - this.now : 0 };
    }
    if (c.kind === 'counter') return { used: this.counters.get(c.key) ?? 0, limit: c.limit, resetMs: 0 };
    const live = this.live(c.key);
    for (const [id, until] of live) if (until <= this.now) live.delete(id);
    return { used: live.size, limit: c.limit, resetMs: 0 };
  }

  private entries(key: string, windowMs: number): { t: number; amount: number }[] {
    const all = (this.windows.get(key) ?? []).filter((x) => x.t > this.now - windowMs);
    this.windows.set(key, all);
    return all;
  }

  private live(key: string): Map<string, number> {
    let m = this.leases.get(key);
    if (!m) this.leases.set(key, (m = new Map()));
    return m;
  }

  async getDoc(): Promise<Uint8Array | undefined> {
    throw new Error('not used by the access tests');
  }
  async putDoc(): Promise<void> {
    throw new Error('not used by the access tests');
  }
  async claim(): Promise<void> {}
  async claimOwners(_ns: string, ids: readonly string[]): Promise<(string | undefined)[]> {
    return ids.map(() => undefined);
  }
  async deleteDoc(): Promise<boolean> {
    throw new Error('not used by the access tests');
  }
  async readRecords(): Promise<{ version: number; records: Map<string, string> }> {
    return { version: 0, records: new Map() };
  }
  async recordsVersion(): Promise<number> {
    return 0;
  }
  async readRecordChanges(): Promise<undefined> {
    return undefined;
  }
  async writeRecords(): Promise<never> {
    throw new Error('not used by the access tests');
  }
  async readAudit(): Promise<string[]> {
    return [];
  }
  async publish(): Promise<void> {}
  subscribe(): () => void {
    return () => {};
  }
  async ping(): Promise<void> {}
  async close(): Promise<void> {}
}
