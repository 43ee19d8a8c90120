// What the request path calls around each model request, over the shared state layer:
//   const a = await access.admit(caller, alias, door);   // before routing; refuses or lets in
//   ... answer ...                                       // a.headers go on the answer
//   await access.settle(caller, alias, upstream, usage, a.leases);   // after the last byte
// and what the usage endpoints show: usageView(caller) for the calling key, adminView() for admins.
// Backend failures (StateUnavailableError) propagate: the caller decides how a missing store answers.
import type { Budget, GatewayConfig, RateLimits } from '../config/types.js';
import type { GatewayError } from '../errors.js';
import type { Usage } from '../ir/types.js';
import type { Charge, CheckState, Lease, StateStore } from '../state/types.js';
import {
  MICROS,
  addScope,
  admissionPlan,
  settlementCharges,
  spendKey,
  spendPeriod,
  type AdmissionPlan,
  type CheckMeta,
  type Scope,
} from './admission-plan.js';
import { periodWindow } from './budget-period.js';
import type { Caller } from './caller.js';
import { keyIndexFor } from './key-index.js';
import { LeaseHoldTimes, refusalWaitMs } from './lease-wait.js';
import type { RuntimeKeys } from './runtime-keys.js';
import { modelAccessError } from './model-access.js';
import { costMicros, priceFor } from './price-table.js';
import { rateLimitHeaders, rfc3339, type Door } from './rate-limit-headers.js';
import { refusalError } from './refusal.js';

export type AccessConfig = Pick<GatewayConfig, 'authKeys' | 'auth' | 'models' | 'providers'>;

export interface AccessServiceOptions {
  /** The live configuration, read on every call so a reload applies to the next request. */
  config: () => AccessConfig;
  /** Keys and teams issued at runtime: listed by the admin view beside the config's. */
  runtimeKeys?: RuntimeKeys;
  now?: () => number;
  /** Longest a concurrency lease lives if settle never comes (a crashed worker), when admit() is not
   * told the request's own bound. Default 30 min. */
  leaseMs?: number;
  /** Background release of leases whose settle failed: the waits between tries (default 0.25 s doubling
   * to 30 s, 12 tries: about 4 minutes), and what to log. */
  releaseRetry?: { delaysMs?: readonly number[]; onRetry?(attempt: number, err: unknown): void; onGiveUp?(err: unknown): void; onReleased?(attempt: number): void };
}

/** A budget's spend as admission saw it (before this request): what the budget gauges export. */
export interface BudgetSeen {
  scope: Scope;
  owner: string;
  usedUsd: number;
}

export type Admission =
  | { ok: true; headers: Record<string, string>; leases: Lease[]; budgets: readonly BudgetSeen[] }
  | { ok: false; error: GatewayError; headers: Record<string, string>; budgets: readonly BudgetSeen[] };

export interface Settled {
  costMicros: number;
  /** False when no price is known for the upstream model (cost counted as 0). */
  priced: boolean;
}

export interface LimitView {
  scope: Scope;
  owner: string;
  limit: 'rpm' | 'tpm' | 'concurrency';
  max: number;
  used: number;
  remaining: number;
  resets_at: string | null;
}

export interface SpendView {
  scope: Scope;
  owner: string;
  period: string;
  usd: number;
  budget_usd: number | null;
  remaining_usd: number | null;
  resets_at: string | null;
}

export interface UsageView {
  key: string;
  team: string | null;
  /** A runtime key's expiry (RFC 3339); null for keys that do not expire. */
  expires_at: string | null;
  limits: LimitView[];
  spend: SpendView[];
}

export interface AdminView {
  keys: UsageView[];
  teams: { team: string; limits: LimitView[]; spend: SpendView }[];
  models: { model: string; period: string; usd: number }[];
}

const NO_HEADERS: Record<string, string> = Object.freeze({}) as Record<string, string>;
const NO_LEASES: Lease[] = Object.freeze([]) as unknown as Lease[];
const NO_BUDGETS: readonly BudgetSeen[] = Object.freeze([]);
const UNPRICED: Settled = Object.freeze({ costMicros: 0, priced: false });
const DEFAULT_LEASE_MS = 30 * 60_000;
const DEFAULT_RELEASE_DELAYS_MS: readonly number[] = [250, 500, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000, 30_000, 60_000];

export class AccessService {
  private readonly config: () => AccessConfig;
  private readonly runtimeKeys: RuntimeKeys | undefined;
  private readonly now: () => number;
  private readonly leaseMs: number;
  private readonly releaseRetry: NonNullable<AccessServiceOptions['releaseRetry']>;
  /** Releases being retried in the background (tests and shutdown can wait for them). */
  private readonly retrying = new Set<Promise<void>>();
  /** When each admission's leases were taken (settle reads it back), and how long leases were held lately. */
  private readonly takenAt = new WeakMap<readonly Lease[], number>();
  private readonly holds = new LeaseHoldTimes();

  constructor(
    private readonly store: StateStore,
    options: AccessServiceOptions,
  ) {
    this.config = options.config;
    this.runtimeKeys = options.runtimeKeys;
    this.now = options.now ?? Date.now;
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.releaseRetry = options.releaseRetry ?? {};
  }

  /**
   * Model access, then limits and budgets in one atomic admission. A caller without limits costs no
   * state call. `leaseMs`: how long this request can run at most (its concurrency lease must outlive
   * it, or a long stream would stop counting); the service's default otherwise.
   */
  async admit(caller: Caller, modelAlias: string, door: Door, leaseMs = this.leaseMs): Promise<Admission> {
    const refused = modelAccessError(caller, modelAlias);
    if (refused !== undefined) return { ok: false, error: refused, headers: NO_HEADERS, budgets: NO_BUDGETS };
    const now = this.now();
    const plan = admissionPlan(caller, now, leaseMs);
    if (plan.checks.length === 0) return { ok: true, headers: NO_HEADERS, leases: NO_LEASES, budgets: NO_BUDGETS };
    const result = await this.store.admit(plan.checks);
    const headers = rateLimitHeaders(door, plan.meta, result.states, now, result.ok);
    const budgets = budgetsSeen(plan.meta, result.states);
    if (result.ok) {
      if (result.leases.length > 0) this.takenAt.set(result.leases, now);
      return { ok: true, headers, leases: result.leases, budgets };
    }
    // A concurrency refusal waits for a slot likely to free, not for the lease's lifetime (lease-wait.ts).
    const waitMs = refusalWaitMs(plan.checks, result.states, result.retryAfterMs, this.holds);
    const error = refusalError(plan.meta[result.failed]!, result.states[result.failed], waitMs);
    return { ok: false, error, headers, budgets };
  }

  /**
   * Token counting (count_tokens, input_tokens): the key's and team's rpm windows only, one request
   * each — the counts go upstream on the shared provider key, whose per-organisation limit every key
   * shares. No lease, no budget. The refusal, or undefined when admitted (or nothing is limited).
   */
  async admitCount(caller: Caller): Promise<GatewayError | undefined> {
    const plan = admissionPlan(caller, this.now(), this.leaseMs);
    const checks: AdmissionPlan['checks'] = [];
    const meta: CheckMeta[] = [];
    plan.meta.forEach((m, i) => {
      if (m.limit !== 'rpm') return;
      checks.push(plan.checks[i]!);
      meta.push(m);
    });
    if (checks.length === 0) return undefined;
    const result = await this.store.admit(checks);
    if (result.ok) return undefined;
    return refusalError(meta[result.failed]!, result.states[result.failed], result.retryAfterMs);
  }

  /** The cost of an answer from its usage and the upstream that gave it (price lookup only, no I/O). */
  costOf(modelAlias: string, upstream: { provider: string; model: string } | undefined, usage: Usage | undefined): Settled {
    if (usage === undefined || upstream === undefined) return UNPRICED;
    const config = this.config();
    const model = config.models.find((m) => m.name === modelAlias);
    const price = priceFor(model, config.providers.get(upstream.provider), upstream.model);
    return price === undefined ? UNPRICED : { costMicros: costMicros(usage, price), priced: true };
  }

  /**
   * After the answer (or its failure: usage undefined): tokens into the tpm windows, cost into the
   * key's, team's and model's spend, and the concurrency leases back. Leases are released even when
   * charging fails. `cost`: the answer's cost when the caller already computed it (costOf). The
   * anonymous caller of an open gateway has nothing to charge: no state call at all.
   */
  async settle(
    caller: Caller,
    modelAlias: string,
    upstream: { provider: string; model: string } | undefined,
    usage: Usage | undefined,
    leases: readonly Lease[],
    cost?: Settled,
  ): Promise<Settled> {
    const takenAt = this.takenAt.get(leases);
    if (takenAt !== undefined) this.holds.observe(this.now() - takenAt);
    let settled: Settled = UNPRICED;
    let charges: Charge[] | undefined;
    try {
      if (usage !== undefined && upstream !== undefined) {
        settled = cost ?? this.costOf(modelAlias, upstream, usage);
        if (!caller.anonymous) charges = settlementCharges(caller, { tokens: usage.inputTokens + usage.outputTokens, costMicros: settled.costMicros, modelAlias }, this.now());
      }
    } catch (err) {
      if (leases.length > 0) await this.store.release(leases);
      throw err;
    }
    if ((charges === undefined || charges.length === 0) && leases.length === 0) return settled;
    // One backend call for both (one transaction on the file store, one round trip on Redis).
    try {
      await this.store.settle(charges ?? [], leases);
    } catch (err) {
      // A lease left behind holds a concurrency slot until it expires: give it back in the background
      // until that lands (a release is idempotent). The charges are not retried: on Redis a timed-out
      // call may still have committed, and charging twice is worse than once missed; the caller logs it.
      if (leases.length > 0) this.releaseInBackground(leases);
      throw err;
    }
    return settled;
  }

  /** Resolves once every background release under way has landed or given up. */
  async backgroundReleases(): Promise<void> {
    while (this.retrying.size > 0) await Promise.all([...this.retrying]);
  }

  private releaseInBackground(leases: readonly Lease[]): void {
    const delays = this.releaseRetry.delaysMs ?? DEFAULT_RELEASE_DELAYS_MS;
    const hooks = this.releaseRetry;
    const run = async (): Promise<void> => {
      let last: unknown;
      for (let i = 0; i < delays.length; i++) {
        await new Promise<void>((r) => setTimeout(r, delays[i]).unref());
        try {
          await this.store.release(leases);
          hooks.onReleased?.(i + 1);
          return;
        } catch (err) {
          last = err;
          hooks.onRetry?.(i + 1, err);
        }
      }
      // The leases expire by themselves (their TTL bounds the damage).
      hooks.onGiveUp?.(last);
    };
    const p = run().finally(() => this.retrying.delete(p));
    this.retrying.add(p);
  }

  /** The calling key's limits (what is left in the current windows) and spend. */
  async usageView(caller: Caller): Promise<UsageView> {
    const now = this.now();
    const plan = admissionPlan(caller, now, this.leaseMs);
    const spends = spendsOf(caller, now);
    const [states, counters] = await Promise.all([
      plan.checks.length > 0 ? this.store.inspect(plan.checks) : Promise.resolve([]),
      this.store.readCounters(spends.map((s) => s.key)),
    ]);
    return viewOf(caller, plan, states, spends, counters, now);
  }

  /** Every key and team, and this month's spend per model alias (for `auth.admin_keys` callers only). */
  async adminView(): Promise<AdminView> {
    const config = this.config();
    const now = this.now();
    const callers = [...keyIndexFor(config.authKeys, config.auth).callers(), ...(this.runtimeKeys?.allCallers(config.auth) ?? [])];
    const plans = callers.map((c) => admissionPlan(c, now, this.leaseMs));
    const spends = callers.map((c) => spendsOf(c, now));
    const teams: { name: string; limits?: RateLimits | undefined; budget?: Budget | undefined }[] = [...config.auth.teams.values(), ...(this.runtimeKeys?.teams() ?? [])];
    const teamPlans = teams.map((t) => {
      const plan: AdmissionPlan = { checks: [], meta: [] };
      addScope(plan, 'team', t.name, t.limits, t.budget, now, this.leaseMs);
      return plan;
    });
    const teamSpends = teams.map((t) => spendEntry('team', t.name, t.budget?.usd, spendPeriod(t.budget), now));
    const month = periodWindow('month', now);
    const modelKeys = config.models.map((m) => spendKey('model', m.name, 'month', now));

    const allChecks = [...plans, ...teamPlans].flatMap((p) => p.checks);
    const allCounters = [...spends.flat().map((s) => s.key), ...teamSpends.map((s) => s.key), ...modelKeys];
    const [states, counters] = await Promise.all([
      allChecks.length > 0 ? this.store.inspect(allChecks) : Promise.resolve([]),
      allCounters.length > 0 ? this.store.readCounters(allCounters) : Promise.resolve([]),
    ]);

    let si = 0;
    let ci = 0;
    const keys = callers.map((c, i) => {
      const plan = plans[i]!;
      const own = spends[i]!;
      const view = viewOf(c, plan, states.slice(si, si + plan.checks.length), own, counters.slice(ci, ci + own.length), now);
      si += plan.checks.length;
      ci += own.length;
      return view;
    });
    const teamViews = teams.map((t, i) => {
      const plan = teamPlans[i]!;
      const limits = limitViews(plan, states.slice(si, si + plan.checks.length), now);
      si += plan.checks.length;
      const spend = spendView(teamSpends[i]!, counters[ci++] ?? 0);
      return { team: t.name, limits, spend };
    });
    const models = config.models.map((m) => ({ model: m.name, period: month.suffix, usd: (counters[ci++] ?? 0) / MICROS }));
    return { keys, teams: teamViews, models };
  }
}

function budgetsSeen(meta: readonly CheckMeta[], states: readonly CheckState[]): readonly BudgetSeen[] {
  let out: BudgetSeen[] | undefined;
  for (let i = 0; i < meta.length; i++) {
    const m = meta[i]!;
    const s = states[i];
    if (m.limit !== 'budget' || s === undefined) continue;
    (out ??= []).push({ scope: m.scope, owner: m.owner, usedUsd: s.used / MICROS });
  }
  return out ?? NO_BUDGETS;
}

interface SpendEntry {
  scope: Scope;
  owner: string;
  key: string;
  period: string;
  budgetUsd: number | undefined;
  resetMs: number | undefined;
}

function spendEntry(scope: Scope, owner: string, budgetUsd: number | undefined, period: ReturnType<typeof spendPeriod>, now: number): SpendEntry {
  const window = periodWindow(period, now);
  return { scope, owner, key: spendKey(scope, owner, period, now), period: window.suffix, budgetUsd, resetMs: window.resetMs };
}

function spendsOf(caller: Caller, now: number): SpendEntry[] {
  const out = [spendEntry('key', caller.name, caller.key.budget?.usd, spendPeriod(caller.key.budget), now)];
  if (caller.team !== undefined && caller.teamPolicy !== undefined) {
    out.push(spendEntry('team', caller.team, caller.teamPolicy.budget?.usd, spendPeriod(caller.teamPolicy.budget), now));
  }
  return out;
}

function spendView(s: SpendEntry, micros: number): SpendView {
  const usd = micros / MICROS;
  return {
    scope: s.scope,
    owner: s.owner,
    period: s.period,
    usd,
    budget_usd: s.budgetUsd ?? null,
    remaining_usd: s.budgetUsd === undefined ? null : Math.max(0, s.budgetUsd - usd),
    resets_at: s.resetMs === undefined ? null : rfc3339(s.resetMs),
  };
}

function limitViews(plan: AdmissionPlan, states: readonly CheckState[], now: number): LimitView[] {
  const out: LimitView[] = [];
  plan.meta.forEach((m: CheckMeta, i) => {
    const s = states[i];
    if (s === undefined || m.limit === 'budget') return;
    out.push({
      scope: m.scope,
      owner: m.owner,
      limit: m.limit,
      max: s.limit,
      used: s.used,
      remaining: Math.max(0, s.limit - s.used),
      resets_at: s.resetMs > 0 ? rfc3339(now + s.resetMs) : null,
    });
  });
  return out;
}

function viewOf(caller: Caller, plan: AdmissionPlan, states: readonly CheckState[], spends: SpendEntry[], counters: readonly number[], now: number): UsageView {
  return {
    key: caller.name,
    team: caller.team ?? null,
    expires_at: caller.expiresAt === undefined ? null : new Date(caller.expiresAt).toISOString(),
    limits: limitViews(plan, states, now),
    spend: spends.map((s, i) => spendView(s, counters[i] ?? 0)),
  };
}
