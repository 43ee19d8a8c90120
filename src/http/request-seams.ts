// Two seams in the life of a generation request, empty today, for the features that need them
// (per-key limits and budgets on the shared state store). Both are awaited by handle-generation.ts.
import type { Generation } from './generation.js';

/**
 * Admission: runs after the caller is known and the plan resolved, before any upstream attempt.
 * Refuse by throwing a GatewayError (e.g. 'rate_limit' with retryAfter, or 'billing'): it is answered
 * in the caller's envelope like any other error, and nothing is sent upstream.
 */
export async function admitGeneration(_gen: Generation): Promise<void> {
  // Nothing to check yet: every authenticated caller is admitted.
}

/**
 * Accounting: runs once the request has finished — after the caller's last byte, with `gen.rec`
 * complete (usage, status, error kind, attempts) — whether it succeeded or failed. It must not throw:
 * the answer is already gone; failures are the implementation's to log.
 */
export async function accountGeneration(_gen: Generation): Promise<void> {
  // Nothing to record yet beyond the metrics and the log line (observability/observer.ts).
}
