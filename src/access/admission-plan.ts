// A caller's limits as state-layer checks (before the request) and its usage as charges (after the
// answer). Key and team limits are checked together in one atomic admission:
// - rpm: a 60 s sliding window, cost 1 per request, recorded at admission;
// - tpm: a 60 s sliding window checked with cost 0 ("is it exhausted?") and charged with the
//   answer's input + output tokens when it ends — one request may overshoot, the next is refused;
// - concurrency: leases, given back when the answer ends (or expire after `leaseMs`);
// - budget: a period counter in micro-USD; a request admitted under budget completes, even if its
//   cost takes the counter over.
import type { AdmissionCheck, Charge } from '../state/types.js';
import type { Budget, BudgetPeriod, RateLimits } from '../config/types.js';
import type { Caller } from './caller.js';
import { periodWindow } from './budget-period.js';

export const MINUTE_MS = 60_000;
/** Micro-USD per USD: budgets and spend are integer counters. */
export const MICROS = 1_000_000;
/** Spend is tracked per month for keys and teams without a budget, and for models. */
const DEFAULT_SPEND_PERIOD: BudgetPeriod = 'month';

export type Scope = 'key' | 'team';
export type LimitName = 'rpm' | 'tpm' | 'concurrency' | 'budget';

/** What each check stands for, to word a refusal and to build headers and views. */
export interface CheckMeta {
  scope: Scope;
  /** The key's or team's name. */
  owner: string;
  limit: LimitName;
  /** Budget checks: the period and its end. */
  period?: BudgetPeriod;
  resetAtMs?: number;
}

export interface AdmissionPlan {
  checks: AdmissionCheck[];
  meta: CheckMeta[];
}

/** Counter and window keys: names are URI-encoded so a `:` in a name cannot collide with another. */
export function stateKey(scope: Scope | 'model', owner: string, what: string): string {
  return `${scope}:${encodeURIComponent(owner)}:${what}`;
}

export function spendKey(scope: Scope | 'model', owner: string, period: BudgetPeriod, nowMs: number): string {
  return stateKey(scope, owner, 'spend:' + periodWindow(period, nowMs).suffix);
}

/** A caller's last plan, while its budget periods last: the same for all its requests in between (a
 * config reload makes new callers). Shared, so nobody edits a plan; the Redis store keeps its encoding
 * of the plan's checks by their identity. */
const lastPlan = new WeakMap<Caller, { leaseMs: number; fromMs: number; untilMs: number; plan: AdmissionPlan }>();

export function admissionPlan(caller: Caller, nowMs: number, leaseMs: number): AdmissionPlan {
  const last = lastPlan.get(caller);
  if (last !== undefined && last.leaseMs === leaseMs && nowMs >= last.fromMs && nowMs < last.untilMs) return last.plan;
  const plan: AdmissionPlan = { checks: [], meta: [] };
  addScope(plan, 'key', caller.name, caller.key.limits, caller.key.budget, nowMs, leaseMs);
  if (caller.team !== undefined && caller.teamPolicy !== undefined) {
    addScope(plan, 'team', caller.team, caller.teamPolicy.limits, caller.teamPolicy.budget, nowMs, leaseMs);
  }
  let fromMs = -Infinity;
  let untilMs = Infinity;
  for (const m of plan.meta) {
    if (m.period === undefined) continue;
    const w = periodWindow(m.period, nowMs);
    fromMs = Math.max(fromMs, w.startMs);
    untilMs = Math.min(untilMs, w.resetMs ?? Infinity);
  }
  lastPlan.set(caller, { leaseMs, fromMs, untilMs, plan });
  return plan;
}

/** Adds one key's or team's checks to a plan (the admin view inspects teams on their own). */
export function addScope(
  plan: AdmissionPlan,
  scope: Scope,
  owner: string,
  limits: RateLimits | undefined,
  budget: Budget | undefined,
  nowMs: number,
  leaseMs: number,
): void {
  if (limits?.rpm !== undefined) {
    plan.checks.push({ kind: 'window', key: stateKey(scope, owner, 'rpm'), windowMs: MINUTE_MS, limit: limits.rpm, cost: 1 });
    plan.meta.push({ scope, owner, limit: 'rpm' });
  }
  if (limits?.tpm !== undefined) {
    plan.checks.push({ kind: 'window', key: stateKey(scope, owner, 'tpm'), windowMs: MINUTE_MS, limit: limits.tpm, cost: 0 });
    plan.meta.push({ scope, owner, limit: 'tpm' });
  }
  if (limits?.concurrency !== undefined) {
    plan.checks.push({ kind: 'concurrency', key: stateKey(scope, owner, 'concurrency'), limit: limits.concurrency, leaseMs });
    plan.meta.push({ scope, owner, limit: 'concurrency' });
  }
  if (budget !== undefined) {
    const window = periodWindow(budget.period, nowMs);
    plan.checks.push({ kind: 'counter', key: stateKey(scope, owner, 'spend:' + window.suffix), limit: Math.round(budget.usd * MICROS) });
    plan.meta.push({ scope, owner, limit: 'budget', period: budget.period, resetAtMs: window.resetMs });
  }
}

export interface Settlement {
  /** input + output tokens of the answer. */
  tokens: number;
  costMicros: number;
  /** The alias the caller asked for (bounded by the config: the model spend label). */
  modelAlias: string;
}

/** After the answer: tokens into the tpm windows that exist, spend into key, team and model counters. */
export function settlementCharges(caller: Caller, s: Settlement, nowMs: number): Charge[] {
  const charges: Charge[] = [];
  const add = (scope: Scope, owner: string, limits: RateLimits | undefined, budget: Budget | undefined): void => {
    if (limits?.tpm !== undefined && s.tokens > 0) {
      charges.push({ kind: 'window', key: stateKey(scope, owner, 'tpm'), windowMs: MINUTE_MS, amount: s.tokens });
    }
    if (s.costMicros > 0) {
      const window = periodWindow(budget?.period ?? DEFAULT_SPEND_PERIOD, nowMs);
      charges.push({ kind: 'counter', key: stateKey(scope, owner, 'spend:' + window.suffix), amount: s.costMicros, ttlMs: window.ttlMs });
    }
  };
  add('key', caller.name, caller.key.limits, caller.key.budget);
  if (caller.team !== undefined && caller.teamPolicy !== undefined) add('team', caller.team, caller.teamPolicy.limits, caller.teamPolicy.budget);
  if (s.costMicros > 0) {
    const window = periodWindow(DEFAULT_SPEND_PERIOD, nowMs);
    charges.push({ kind: 'counter', key: stateKey('model', s.modelAlias, 'spend:' + window.suffix), amount: s.costMicros, ttlMs: window.ttlMs });
  }
  return charges;
}

/** The period a scope's spend is counted in (its budget's, else the month). */
export function spendPeriod(budget: Budget | undefined): BudgetPeriod {
  return budget?.period ?? DEFAULT_SPEND_PERIOD;
}
