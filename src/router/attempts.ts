// The routing policy for one request: which deployment next, whether a failure is worth another
// attempt, and how long to wait first. The caller (http/) does the I/O by handing over runAttempt.
// Retries and fallbacks happen only while nothing has reached the caller.
import { GatewayError, KIND_INFO, toGatewayError, type GatewayErrorKind } from '../errors.js';
import type { DeploymentHealth } from './deployment-health.js';
import type { RouteTarget } from './model-table.js';

export interface AttemptStart {
  target: RouteTarget;
  /** 1 for the first attempt on this deployment, 2+ for retries. */
  attempt: number;
  /** The first attempt on a deployment after an earlier one failed. */
  fallback: boolean;
}

/** What the loop reads of the caller's abort signal: an AbortSignal will do. */
export interface CallerSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
}

export interface AttemptHooks {
  /** One upstream attempt. Resolves with the kind of an error that cut a committed stream short
   * (nothing can be retried then, but it still counts against the deployment), else undefined. */
  runAttempt(target: RouteTarget): Promise<GatewayErrorKind | undefined>;
  /** True once a byte went to the caller: no retry or fallback after that. */
  committed(): boolean;
  /** Aborted when the caller leaves: stop trying, stop waiting. */
  signal: CallerSignal;
  /** True when no further attempt may start (the instance is shutting down): the last error stands. */
  stopped?(): boolean;
  /** Bookkeeping before each attempt (record, metrics). */
  onAttemptStart?(start: AttemptStart): void;
  /** Bookkeeping after each attempt: 'success' or the error kind. */
  onAttemptEnd?(target: RouteTarget, outcome: GatewayErrorKind | 'success'): void;
  /** A failed attempt and what the router does next, and why (the operator's log). */
  onAttemptFailed?(failure: AttemptFailure): void;
  /** A deployment passed over before its `attempt`: its circuit is open and a later one is available. */
  onDeploymentSkipped?(target: RouteTarget, attempt: number): void;
}

/** After a failed attempt: the same deployment again, the next one, or no further attempt. */
export type NextStep = 'retry' | 'fallback' | 'give_up';

/** Why the router took its next step (fixed words, for log queries). */
export type MoveReason =
  | 'transient' // retry: a retryable error, attempts and budget left
  | 'credentials_refused' // the upstream refused the gateway's own key: this deployment cannot answer
  | 'retries_exhausted' // the deployment's retry.attempts are used up
  | 'retry_budget_spent' // the next backoff would overrun retry.budget_ms
  | 'not_retryable' // the error would recur (a bad request, an overflow, a quota)
  | 'stream_started' // bytes reached the caller: nothing can be tried again
  | 'caller_gone'
  | 'shutting_down';

export interface AttemptFailure {
  target: RouteTarget;
  attempt: number;
  error: GatewayError;
  next: NextStep;
  why: MoveReason;
  /** The backoff before the retry (next === 'retry'). */
  waitMs?: number;
}

/**
 * Try each target in order, with retries, until one answers or nothing is left. A deployment whose
 * circuit is open (or whose one half-open probe is out) is skipped while a later one is available;
 * when none is, it is tried anyway (panic mode: refusing all traffic would protect nothing when there
 * is no alternative). The retry budget bounds retries and their backoff; each further deployment
 * still gets its one attempt. Throws the last error when every attempt failed.
 */
export async function runAttempts(targets: readonly RouteTarget[], health: DeploymentHealth, hooks: AttemptHooks): Promise<void> {
  const started = Date.now();
  let lastError: GatewayError | undefined;
  let attempted = 0;
  for (let ti = 0; ti < targets.length; ti++) {
    const target = targets[ti]!;
    const policy = target.provider.retry;
    const onward: NextStep = ti < targets.length - 1 ? 'fallback' : 'give_up';
    for (let attempt = 1; attempt <= policy.attempts; attempt++) {
      if (hooks.signal.aborted) return;
      if (!health.available(target.deployment) && laterAvailable(health, targets, ti)) {
        hooks.onDeploymentSkipped?.(target, attempt);
        break;
      }
      hooks.onAttemptStart?.({ target, attempt, fallback: attempt === 1 && attempted > 0 });
      attempted++;
      health.begin(target.deployment);
      try {
        const midStream = await hooks.runAttempt(target);
        hooks.onAttemptEnd?.(target, 'success');
        if (midStream !== undefined && !hooks.signal.aborted && KIND_INFO[midStream]?.retryable) {
          health.failure(target.deployment, target.provider.cooldown);
        }
        return;
      } catch (err) {
        const gerr = toGatewayError(err);
        lastError = gerr;
        hooks.onAttemptEnd?.(target, gerr.kind);
        const failed = (next: NextStep, why: MoveReason, waitMs?: number) =>
          hooks.onAttemptFailed?.({ target, attempt, error: gerr, next, why, ...(waitMs === undefined ? {} : { waitMs }) });
        const stop = stopReason(gerr, hooks);
        if (stop !== undefined) {
          failed('give_up', stop);
          throw gerr;
        }
        health.failure(target.deployment, target.provider.cooldown);
        // Our own credentials refused: retrying the same deployment cannot help; another may.
        if (gerr.upstreamStatus === 401 || gerr.upstreamStatus === 403) {
          failed(onward, 'credentials_refused');
          break;
        }
        if (attempt >= policy.attempts) {
          failed(onward, 'retries_exhausted');
          break;
        }
        const delay = backoffDelay(policy.backoffMs, policy.maxBackoffMs, attempt, gerr);
        if (Date.now() - started + delay > policy.budgetMs) {
          failed(onward, 'retry_budget_spent');
          break;
        }
        failed('retry', 'transient', delay);
        await sleep(delay, hooks.signal);
      } finally {
        health.end(target.deployment);
      }
      if (Date.now() - started > policy.budgetMs) break;
    }
  }
  throw lastError ?? new GatewayError('overloaded', 'no upstream deployment is available');
}

/** Why no further attempt may start after this error, or undefined when one may. */
function stopReason(err: GatewayError, hooks: AttemptHooks): MoveReason | undefined {
  if (hooks.committed()) return 'stream_started';
  if (hooks.signal.aborted) return 'caller_gone';
  if (hooks.stopped?.()) return 'shutting_down';
  if (!retryable(err)) return 'not_retryable';
  return undefined;
}

/**
 * May the router try again (same deployment or another)? The error's kind decides, and the upstream's
 * HTTP status as well: 408, 409, 429 and 5xx are transient whatever the body says (a 408 from a
 * proxy or an upstream that labels it `invalid_request_error` is still worth another attempt). A
 * context overflow never is (the same prompt overflows again), nor an exhausted quota (a 429 too).
 */
export function retryable(err: GatewayError): boolean {
  if (err.kind === 'context_overflow' || err.kind === 'billing') return false;
  if (err.retryable) return true;
  const status = err.upstreamStatus;
  return status !== undefined && (status === 408 || status === 409 || status === 429 || status >= 500);
}

function laterAvailable(health: DeploymentHealth, targets: readonly RouteTarget[], index: number): boolean {
  for (let i = index + 1; i < targets.length; i++) if (health.available(targets[i]!.deployment)) return true;
  return false;
}

/**
 * Exponential backoff with jitter (a random point in the upper half of the step, so retries of many
 * requests spread out but never come back sooner than half the step), or the upstream's retry-after
 * (retry-after-ms, delta-seconds or an HTTP date) when it asks for longer.
 */
export function backoffDelay(baseMs: number, maxMs: number, attempt: number, err: GatewayError): number {
  const exp = Math.min(maxMs, baseMs * 2 ** (attempt - 1));
  let delay = exp / 2 + Math.random() * (exp / 2);
  const asked = retryAfterMs(err);
  if (asked !== undefined && asked > delay) delay = asked;
  return Math.ceil(delay);
}

/** What the upstream asked for, in milliseconds: retry-after-ms, delta-seconds or an HTTP date. */
export function retryAfterMs(err: GatewayError, now = Date.now()): number | undefined {
  if (err.retryAfterMs !== undefined) {
    const ms = Number(err.retryAfterMs);
    if (Number.isFinite(ms) && ms >= 0) return ms;
  }
  if (err.retryAfter !== undefined) {
    const s = Number(err.retryAfter);
    if (Number.isFinite(s) && s >= 0) return s * 1000;
    const date = Date.parse(err.retryAfter);
    if (Number.isFinite(date)) return Math.max(0, date - now);
  }
  return undefined;
}

function sleep(ms: number, signal: CallerSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        resolve();
      },
      { once: true },
    );
  });
}
