// Refusals of the gateway's own keys in the log, rate-limited: a client with a stale key, or someone
// guessing keys, sends them as fast as it can, and one line each would drown every other line. The first
// refusal is logged at once; then at most one line per AUTH_LOG_INTERVAL_MS, carrying how many were not
// logged since the previous line (switchyard_auth_failures_total counts every one). Nothing of the key
// presented is logged, not even a part of it.
import type { Logger } from 'pino';

export const AUTH_FAILURE_REASONS = ['missing_key', 'invalid_key', 'forbidden', 'foreign_host'] as const;
export type AuthFailureReason = (typeof AUTH_FAILURE_REASONS)[number];

/** Longest a refusal waits to be logged once an earlier one was (the rest are counted in the next line). */
export const AUTH_LOG_INTERVAL_MS = 10_000;
const MAX_FIELD = 200;

export interface AuthFailure {
  reason: AuthFailureReason;
  status: number;
  method: string;
  /** The path without its query (a query could carry a key). */
  path: string;
  /** The client's address as the server saw it (request.ip). */
  remoteAddress: string;
  userAgent?: string;
}

export class AuthFailureLog {
  private lastLoggedAt = -Infinity;
  private suppressed = 0;

  constructor(
    private readonly logger: Logger,
    private readonly now: () => number = () => performance.now(),
    private readonly intervalMs = AUTH_LOG_INTERVAL_MS,
  ) {}

  record(f: AuthFailure): void {
    const now = this.now();
    if (now - this.lastLoggedAt < this.intervalMs) {
      this.suppressed++;
      return;
    }
    this.lastLoggedAt = now;
    const suppressed = this.suppressed;
    this.suppressed = 0;
    this.logger.warn(
      {
        reason: f.reason,
        status: f.status,
        method: bounded(f.method),
        path: bounded(f.path),
        remoteAddress: bounded(f.remoteAddress),
        ...(f.userAgent === undefined ? {} : { userAgent: bounded(f.userAgent) }),
        suppressed,
      },
      'authentication failed',
    );
  }
}

function bounded(text: string): string {
  return text.length > MAX_FIELD ? text.slice(0, MAX_FIELD) + '…' : text;
}
