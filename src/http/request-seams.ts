// Two seams in the life of a generation request, awaited by handle-generation.ts: admission (model
// access, rate limits, concurrency, budgets: access/access-service.ts over the shared state store)
// and accounting (tokens and cost charged, concurrency leases given back).
import type { RouteTarget } from '../router/model-table.js';
import { StateUnavailableError } from '../state/types.js';
import type { Generation } from './generation.js';
import { stateUnavailable } from './state-unavailable.js';

/** Beyond the longest the request can run: time for accounting to land before the lease lapses. */
const LEASE_MARGIN_MS = 60_000;

/**
 * How long this request can hold its concurrency lease: every attempt of every target may run to its
 * provider's total_ms, plus the retry waits, plus a margin. A lease that expired under a live stream
 * would stop counting it; a settle that fails is retried in the background (access-service.ts).
 */
export function leaseMsFor(targets: readonly RouteTarget[]): number {
  let ms = LEASE_MARGIN_MS;
  let waits = 0;
  for (const t of targets) {
    ms += t.provider.timeouts.totalMs * t.provider.retry.attempts;
    waits = Math.max(waits, t.provider.retry.budgetMs);
  }
  return ms + waits;
}

/**
 * Admission: runs after the caller is known and the plan resolved, before any upstream attempt.
 * A refusal is thrown as its GatewayError (answered in the caller's envelope, nothing sent upstream);
 * the key's rate-limit headers are kept on the generation either way, so the refusal and every later
 * answer carry them. A caller without limits costs no state call and no header work.
 */
export async function admitGeneration(gen: Generation): Promise<void> {
  const { ctx, caller } = gen;
  let admission;
  try {
    admission = await ctx.access.admit(caller, gen.ir.model, gen.codec.protocol, leaseMsFor(gen.plan.targets));
  } catch (err) {
    // Admitting without the store would let a key past its limits; refusing says why.
    if (err instanceof StateUnavailableError) throw stateUnavailable(ctx, err, 'check this key\'s limits');
    throw err;
  }
  for (const b of admission.budgets) ctx.obs.recordBudgetSpend(b.scope, b.owner, b.usedUsd);
  if (admission.headers !== undefined && hasAny(admission.headers)) gen.accessHeaders = admission.headers;
  if (!admission.ok) throw admission.error;
  gen.leases = admission.leases;
}

/**
 * The answer's cost, synchronously, before the request's log line and metrics are written (they
 * carry it). Price lookup only; the state work is accountGeneration's.
 */
export function priceGeneration(gen: Generation): void {
  const rec = gen.rec;
  if (rec.usage === undefined || rec.upstreamModel === '') return;
  const cost = gen.ctx.access.costOf(gen.plan.label, { provider: rec.provider, model: rec.upstreamModel }, rec.usage);
  rec.costMicros = cost.priced ? cost.costMicros : -1;
}

/**
 * Accounting: runs once the request has finished — after the caller's last byte, with `gen.rec`
 * complete (usage, status, error kind, attempts) — whether it succeeded, failed or the caller left.
 * Leases are always given back (settle releases them even when charging fails). It must not throw:
 * the answer is already gone; failures are the implementation's to log.
 */
export async function accountGeneration(gen: Generation): Promise<void> {
  const rec = gen.rec;
  const usage = rec.usage;
  const upstream = usage === undefined || rec.upstreamModel === '' ? undefined : { provider: rec.provider, model: rec.upstreamModel };
  // Nothing to charge and nothing to give back: no state call (the open gateway's anonymous caller).
  if (gen.leases.length === 0 && (upstream === undefined || gen.caller.anonymous)) return;
  const cost = rec.costMicros >= 0 ? { costMicros: rec.costMicros, priced: true } : { costMicros: 0, priced: false };
  await gen.ctx.access.settle(gen.caller, gen.plan.label, upstream, usage, gen.leases, cost);
}

function hasAny(o: Record<string, string>): boolean {
  for (const _ in o) return true;
  return false;
}
