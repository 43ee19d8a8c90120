// Runtime keys (issued through the admin API) as this process sees them: a copy of the store's key
// and team records, with a map from each secret's sha256 to its key, so authentication is one hash
// and one map lookup however many keys exist (no comparison against every digest).
//
// Propagation: every `pollMs` (250 ms) the process reads the records' version (one small read); when
// it moved, it reads the records that changed since its copy's version (the store keeps the ids of its
// last writes), or all of them when the store cannot say (a copy too old, a store reset). A change made
// anywhere is therefore in force everywhere within about pollMs plus one read, and costs each process
// the changed records, not a re-read of 10,000. Staleness: when the store has not answered a poll for `maxStalenessMs`
// (default 5 s), runtime keys are refused (503) rather than served from a copy that may still hold a
// revoked key; config keys are not affected. So a revoked key is never admitted beyond that bound.
import type { AuthConfig } from '../config/types.js';
import type { StateStore } from '../state/types.js';
import type { Caller, Policy } from './caller.js';
import { parseRecords, type KeyRecord, type ParsedRecords, type TeamRecord } from './key-records.js';
import { compileAllowList } from './model-access.js';

export const DEFAULT_POLL_MS = 250;
export const DEFAULT_MAX_STALENESS_MS = 5_000;

export interface RuntimeKeysOptions {
  pollMs?: number;
  maxStalenessMs?: number;
  now?: () => number;
  /** A poll failed (the store is away); called once per failed poll. */
  onPollError?: (err: unknown) => void;
  /** A record could not be parsed (skipped). */
  onBadRecord?: (id: string) => void;
}

/** A digest's key, and until when a rotated-out digest still counts. */
interface DigestEntry {
  name: string;
  untilMs: number;
}

export type RuntimeLookup =
  | { ok: true; caller: Caller }
  /** A known secret that may not be used now: disabled, expired, its team disabled. */
  | { ok: false; reason: 'disabled' | 'expired' | 'team disabled' }
  /** The store has not been read within the staleness bound: nothing can be said. */
  | { ok: false; reason: 'stale' };

export class RuntimeKeys {
  private readonly pollMs: number;
  readonly maxStalenessMs: number;
  private readonly now: () => number;
  private version = -1;
  private records: ParsedRecords = { keys: new Map(), teams: new Map() };
  private raw = new Map<string, string>();
  private byDigest = new Map<string, DigestEntry>();
  /** When the last successful poll started (so the bound counts from what the store said then). */
  private freshAt = -Infinity;
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  /** Callers built for one config's auth section (teams come from it too); rebuilt after a change. */
  private callers = new Map<string, Caller>();
  private callersFor: AuthConfig | undefined;

  constructor(
    private readonly store: StateStore,
    private readonly options: RuntimeKeysOptions = {},
  ) {
    this.pollMs = options.pollMs ?? DEFAULT_POLL_MS;
    this.maxStalenessMs = options.maxStalenessMs ?? DEFAULT_MAX_STALENESS_MS;
    this.now = options.now ?? Date.now;
  }

  /** First read (awaited by start-up; a failure is reported, and polling goes on), then the poll. */
  async start(): Promise<void> {
    await this.refresh();
    if (this.timer === undefined) {
      this.timer = setInterval(() => void this.refresh(), this.pollMs);
      this.timer.unref();
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Reads the version and, when it moved, the records. One at a time; a caller joins the one running. */
  refresh(): Promise<void> {
    this.polling ??= this.poll().finally(() => (this.polling = undefined));
    return this.polling;
  }

  /** After a write of this process: wait for the running poll, then read again, so the write is in force here. */
  async refreshNow(): Promise<void> {
    await this.polling;
    await this.refresh();
  }

  private async poll(): Promise<void> {
    const startedAt = this.now();
    try {
      const version = await this.store.recordsVersion();
      if (version !== this.version) {
        const delta = this.version >= 0 ? await this.store.readRecordChanges(this.version) : undefined;
        if (delta !== undefined) this.apply(delta.version, delta.changes);
        else {
          const snap = await this.store.readRecords();
          this.load(snap.version, snap.records);
        }
      }
      this.freshAt = startedAt;
    } catch (err) {
      this.options.onPollError?.(err);
    }
  }

  private load(version: number, raw: Map<string, string>): void {
    const records = parseRecords(raw, this.options.onBadRecord);
    const byDigest = new Map<string, DigestEntry>();
    for (const r of records.keys.values()) addDigests(byDigest, r);
    this.version = version;
    this.records = records;
    this.raw = raw;
    this.byDigest = byDigest;
    this.callers = new Map();
  }

  /** The changed records into the copy, in place (synchronously: no lookup sees half of it). A key's
   * change drops that key's caller; a team's drops every caller (their team policy may have moved). */
  private apply(version: number, changes: ReadonlyMap<string, string | null>): void {
    let teamChanged = false;
    for (const [id, value] of changes) {
      if (value === null) this.raw.delete(id);
      else this.raw.set(id, value);
      const parsed = value === null ? undefined : parseRecords(new Map([[id, value]]), this.options.onBadRecord);
      if (id.startsWith('key:')) {
        const name = id.slice(4);
        const old = this.records.keys.get(name);
        if (old !== undefined) forgetDigests(this.byDigest, old);
        this.records.keys.delete(name);
        this.callers.delete(name);
        const next = parsed?.keys.get(name);
        if (next !== undefined) {
          this.records.keys.set(name, next);
          addDigests(this.byDigest, next);
        }
      } else if (id.startsWith('team:')) {
        const name = id.slice(5);
        teamChanged = true;
        this.records.teams.delete(name);
        const next = parsed?.teams.get(name);
        if (next !== undefined) this.records.teams.set(name, next);
      }
    }
    if (teamChanged) this.callers = new Map();
    this.version = version;
  }

  /** Whether the copy is older than the bound (or was never read). */
  stale(): boolean {
    return this.now() - this.freshAt > this.maxStalenessMs;
  }

  /** The runtime key behind a secret's sha256 (hex), or undefined when no runtime key has it. */
  lookup(digestHex: string, auth: AuthConfig): RuntimeLookup | undefined {
    if (this.stale()) return { ok: false, reason: 'stale' };
    const entry = this.byDigest.get(digestHex);
    if (entry === undefined) return undefined;
    const now = this.now();
    if (entry.untilMs <= now) return undefined;
    const record = this.records.keys.get(entry.name);
    if (record === undefined) return undefined;
    if (record.disabled) return { ok: false, reason: 'disabled' };
    if (record.expires_at !== undefined && Date.parse(record.expires_at) <= now) return { ok: false, reason: 'expired' };
    const team = record.team === undefined ? undefined : this.records.teams.get(record.team);
    if (team?.disabled === true) return { ok: false, reason: 'team disabled' };
    return { ok: true, caller: this.callerOf(record, auth) };
  }

  /** The same Caller object for every request of a key until its records or the config change (the
   * admission plan and the Redis store cache their work by the caller's identity). */
  private callerOf(record: KeyRecord, auth: AuthConfig): Caller {
    if (this.callersFor !== auth) {
      this.callers = new Map();
      this.callersFor = auth;
    }
    let caller = this.callers.get(record.name);
    if (caller === undefined) {
      caller = buildCaller(record, this.records.teams.get(record.team ?? ''), auth);
      this.callers.set(record.name, caller);
    }
    return caller;
  }

  /** Every runtime key's caller (the admin usage view lists them beside the config keys). */
  allCallers(auth: AuthConfig): Caller[] {
    return [...this.records.keys.values()].map((r) => this.callerOf(r, auth));
  }

  /** Runtime teams with their policies (the admin usage view). */
  teams(): TeamRecord[] {
    return [...this.records.teams.values()];
  }

  keys(): KeyRecord[] {
    return [...this.records.keys.values()];
  }

  key(name: string): KeyRecord | undefined {
    return this.records.keys.get(name);
  }

  team(name: string): TeamRecord | undefined {
    return this.records.teams.get(name);
  }

  /** A record exactly as stored (the expectation of a conditional write). */
  rawRecord(id: string): string | undefined {
    return this.raw.get(id);
  }
}

function addDigests(byDigest: Map<string, DigestEntry>, r: KeyRecord): void {
  byDigest.set(r.sha256, { name: r.name, untilMs: Infinity });
  if (r.previous !== undefined) byDigest.set(r.previous.sha256, { name: r.name, untilMs: Date.parse(r.previous.until) });
}

/** A key's digests out of the map, unless another key holds them now. */
function forgetDigests(byDigest: Map<string, DigestEntry>, r: KeyRecord): void {
  for (const d of [r.sha256, r.previous?.sha256]) {
    if (d !== undefined && byDigest.get(d)?.name === r.name) byDigest.delete(d);
  }
}

function policyOf(p: { models?: string[] | undefined; limits?: KeyRecord['limits']; budget?: KeyRecord['budget'] }): Policy {
  return Object.freeze({ models: p.models === undefined ? undefined : compileAllowList(p.models), limits: p.limits, budget: p.budget });
}

function buildCaller(record: KeyRecord, runtimeTeam: TeamRecord | undefined, auth: AuthConfig): Caller {
  let teamPolicy: Policy | undefined;
  if (record.team !== undefined) {
    const configTeam = auth.teams.get(record.team);
    teamPolicy = policyOf(runtimeTeam ?? configTeam ?? {});
  }
  const caller: Caller = {
    name: record.name,
    team: record.team,
    admin: false,
    anonymous: false,
    key: policyOf(record),
    teamPolicy,
  };
  if (record.expires_at !== undefined) caller.expiresAt = Date.parse(record.expires_at);
  return Object.freeze(caller);
}
