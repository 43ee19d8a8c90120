// Why admission said no, as the error the caller's door gives: a limit → 429 `rate_limit` with
// retry-after; a budget → `billing` (Messages 402 billing_error, Responses 429 insufficient_quota),
// saying which budget and when it resets. Names (never keys) identify what ran out.
import { GatewayError } from '../errors.js';
import { MICROS, type CheckMeta } from './admission-plan.js';
import { rfc3339 } from './rate-limit-headers.js';
import type { CheckState } from '../state/types.js';

const PERIOD_WORDS = { day: 'daily', week: 'weekly', month: 'monthly', total: 'total' } as const;

export function refusalError(meta: CheckMeta, state: CheckState | undefined, retryAfterMs: number): GatewayError {
  const who = `${meta.scope} "${meta.owner}"`;
  const limit = state?.limit ?? 0;
  if (meta.limit === 'budget') {
    const period = meta.period ?? 'total';
    const resets = meta.resetAtMs === undefined ? 'it does not reset (period: total)' : `it resets at ${rfc3339(meta.resetAtMs)}`;
    const spent = state === undefined ? '' : ` (spent $${usd(state.used)})`;
    return new GatewayError('billing', `the ${PERIOD_WORDS[period]} budget of ${who} ($${usd(limit)}) is used up${spent}; ${resets}`);
  }
  // Whole seconds for retry-after (never 0: clients would spin), exact milliseconds alongside.
  const waitMs = Math.max(1, Math.ceil(retryAfterMs));
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  const what =
    meta.limit === 'rpm'
      ? `${limit} requests per minute`
      : meta.limit === 'tpm'
        ? `${limit} tokens per minute`
        : `${limit} concurrent requests`;
  return new GatewayError('rate_limit', `rate limit of ${who} reached: ${what}; retry in ${seconds} s`, {
    retryAfter: String(seconds),
    retryAfterMs: String(waitMs),
  });
}

/** Cents for ordinary amounts; below a cent, enough digits that a tiny budget does not read "$0.00". */
function usd(micros: number): string {
  if (micros >= 10_000 || micros === 0) return (micros / MICROS).toFixed(2);
  return (micros / MICROS).toFixed(6).replace(/0+$/, '');
}
