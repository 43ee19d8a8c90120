// Open-loop load at a fixed request rate, evenly spaced (one request every 1000/rate ms, whatever the
// previous ones are doing), each timed from dispatch to the last body byte in undici's callbacks.
// autocannon is not used here: its rate limit releases every connection's per-second quota in a burst,
// so requests queue behind each other, and its histogram has whole-millisecond buckets.
import { Pool } from 'undici';
import { timedRequest, type StreamTarget } from './stream-clients.js';

export interface FixedRateResult {
  /** Response times of the complete 2xx answers, µs. */
  latenciesUs: number[];
  achievedRps: number;
  failures: number;
  firstFailure?: string;
  /** How late the scheduler fired requests, worst case (ms): a load-generator health check. */
  maxLatenessMs: number;
}

export async function fixedRate(target: StreamTarget, rate: number, durationS: number): Promise<FixedRateResult> {
  const pool = new Pool(target.origin, { connections: 16, pipelining: 1 });
  const result: FixedRateResult = { latenciesUs: [], achievedRps: 0, failures: 0, maxLatenessMs: 0 };
  try {
    // Open the connections the run will use, outside the measurement.
    await Promise.all(Array.from({ length: 4 }, () => timedRequest(pool, target)));
    const interval = 1000 / rate;
    const total = Math.max(1, Math.round(durationS * rate));
    const pending: Promise<void>[] = [];
    const start = performance.now();
    for (let i = 0; i < total; i++) {
      const due = start + i * interval;
      const wait = due - performance.now();
      // No busy-wait for exactness: a spinning loop would delay the timestamps of answers arriving meanwhile.
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      result.maxLatenessMs = Math.max(result.maxLatenessMs, performance.now() - due);
      pending.push(
        timedRequest(pool, target).then((t) => {
          if (t.complete) result.latenciesUs.push(t.totalMs * 1000);
          else {
            result.failures++;
            result.firstFailure ??= t.error ?? `status ${t.status}`;
          }
        }),
      );
    }
    await Promise.all(pending);
    result.achievedRps = total / ((performance.now() - start) / 1000);
  } finally {
    await pool.close().catch(() => pool.destroy());
  }
  return result;
}
