// Custom undici clients for what autocannon cannot report: time to first byte of a stream, total stream
// time, and inter-event gaps of many concurrent paced streams. They use Pool.dispatch with a raw handler,
// so timestamps are taken in the parser callbacks, with no stream or promise machinery in between.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Pool } from 'undici';

export interface StreamTarget {
  origin: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  /** Text a complete stream ends with (e.g. `event: message_stop`), checked in the last bytes; '' = any 200. */
  terminal: string;
}

export interface Timing {
  status: number;
  error?: string;
  headersMs: number;
  firstByteMs: number;
  totalMs: number;
  frames: number;
  complete: boolean;
}

const LF = 10;

/** Counts SSE frame ends (blank lines) and watches for the terminal text, across chunk boundaries. */
class FrameCounter {
  frames = 0;
  seen = false;
  private lastWasLf = false;
  private carry = '';

  constructor(private readonly terminal: string) {
    this.seen = terminal === '';
  }

  push(chunk: Buffer): void {
    let at = 0;
    if (this.lastWasLf && chunk.length > 0 && chunk[0] === LF) {
      this.frames++;
      at = 1;
    }
    for (;;) {
      const i = chunk.indexOf('\n\n', at, 'latin1');
      if (i === -1) break;
      this.frames++;
      at = i + 2;
    }
    this.lastWasLf = chunk.length > 0 && chunk[chunk.length - 1] === LF;
    if (!this.seen) {
      const keep = this.terminal.length - 1;
      const head = chunk.subarray(0, keep).toString('latin1');
      this.seen = chunk.indexOf(this.terminal, 0, 'latin1') !== -1 || (this.carry + head).includes(this.terminal);
      this.carry = (this.carry + chunk.subarray(Math.max(0, chunk.length - keep)).toString('latin1')).slice(-keep);
    }
  }
}

/** One request; timestamps taken in undici's parser callbacks (ms since the dispatch call). */
export function timedRequest(pool: Pool, target: StreamTarget, onChunk?: (now: number) => void): Promise<Timing> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    let status = 0;
    let headersAt = NaN;
    let firstAt = NaN;
    const counter = new FrameCounter(target.terminal);
    pool.dispatch(
      { method: 'POST', path: target.path, headers: target.headers, body: target.body },
      {
        onRequestStart() {},
        onResponseStart(_controller, statusCode) {
          status = statusCode;
          headersAt = performance.now();
        },
        onResponseData(_controller, chunk) {
          const now = performance.now();
          if (Number.isNaN(firstAt)) firstAt = now;
          onChunk?.(now);
          counter.push(chunk);
        },
        onResponseEnd() {
          const end = performance.now();
          resolve({
            status,
            headersMs: headersAt - t0,
            firstByteMs: firstAt - t0,
            totalMs: end - t0,
            frames: counter.frames,
            complete: status === 200 && counter.seen,
          });
        },
        onResponseError(_controller, err) {
          resolve({ status, error: err.message, headersMs: NaN, firstByteMs: NaN, totalMs: NaN, frames: counter.frames, complete: false });
        },
      },
    );
  });
}

export interface TtfbResult {
  headersUs: number[];
  ttfbUs: number[];
  totalUs: number[];
  framesPerStream: number;
  failures: number;
  firstFailure?: string;
}

/** One stream at a time over one keep-alive connection: unloaded TTFB and total stream time. */
export async function ttfbLoop(target: StreamTarget, durationS: number, maxSamples: number): Promise<TtfbResult> {
  const pool = new Pool(target.origin, { connections: 1, pipelining: 1 });
  const out: TtfbResult = { headersUs: [], ttfbUs: [], totalUs: [], framesPerStream: 0, failures: 0 };
  const end = performance.now() + durationS * 1000;
  try {
    while (performance.now() < end && out.ttfbUs.length < maxSamples) {
      const t = await timedRequest(pool, target);
      if (!t.complete) {
        out.failures++;
        out.firstFailure ??= t.error ?? `status ${t.status}, ${t.frames} frames, no terminal event`;
        if (out.failures > 20) break;
        continue;
      }
      out.headersUs.push(t.headersMs * 1000);
      out.ttfbUs.push(t.firstByteMs * 1000);
      out.totalUs.push(t.totalMs * 1000);
      out.framesPerStream = t.frames;
    }
  } finally {
    await pool.close().catch(() => pool.destroy());
  }
  return out;
}

export interface PacedOptions {
  concurrency: number;
  rampMs: number;
  holdMs: number;
  paceMs: number;
  /** How long to wait for the last streams to finish after the hold. */
  drainMs: number;
  /** Close the streams still open at the end of the hold instead of waiting for them (counted as `cut`,
   * not failures): for streams longer than the hold. */
  cutAtEnd?: boolean;
  /** Pool connections (default concurrency + 64). */
  connections?: number;
  /** Connect timeout (default undici's 10 s): thousands of connections opened at once on a loaded
   * machine overflow a listener's accept queue, and a dropped SYN is retried after 1, 3, 7, 15 s. */
  connectTimeoutMs?: number;
  /** Awaited at the end of the hold, before the cut or the drain, with the gaps no longer recorded (a
   * measurement that pauses the system under test, e.g. a forced GC, leaves the gap figures alone). */
  atHoldEnd?: () => Promise<void>;
}

export interface PacedResult {
  started: number;
  completed: number;
  failures: number;
  /** Streams closed by this client at the end of the hold (`cutAtEnd`). */
  cut: number;
  firstFailure?: string;
  /** Lowest client-side in-flight count sampled during the hold (after the ramp). */
  minHeld: number;
  maxInFlight: number;
  /** Inter-chunk gaps minus the pacing, ms. */
  excessGap: { p50: number; p99: number; p999: number; max: number; over100ms: number; samples: number };
  /** The same, only the gaps that ended after the ramp (all streams open): what holding them costs. */
  holdExcessGap: { p99: number; max: number; samples: number };
  streamMs: { p50: number; p99: number; max: number };
  framesPerStream: number;
  /** This client's own event-loop delay (ms): how much of the gaps the measuring side itself adds. */
  clientLoopDelayMs: { p99: number; max: number };
}

/** Histogram of non-negative millisecond values in 0.1 ms buckets up to 60 s. */
class MsHistogram {
  private readonly buckets = new Uint32Array(600_001);
  count = 0;
  max = 0;

  record(ms: number): void {
    const v = ms < 0 ? 0 : ms;
    if (v > this.max) this.max = v;
    this.buckets[Math.min(this.buckets.length - 1, Math.round(v * 10))]!++;
    this.count++;
  }

  percentile(p: number): number {
    if (this.count === 0) return NaN;
    const rank = Math.ceil((p / 100) * this.count);
    let seen = 0;
    for (let i = 0; i < this.buckets.length; i++) {
      seen += this.buckets[i]!;
      if (seen >= rank) return i / 10;
    }
    return this.max;
  }

  countAbove(ms: number): number {
    let n = 0;
    for (let i = Math.floor(ms * 10) + 1; i < this.buckets.length; i++) n += this.buckets[i]!;
    return n;
  }
}

/**
 * Keeps `concurrency` streams open (ramped up over rampMs, each replaced as soon as it ends) for holdMs,
 * and records every gap between consecutive body chunks of a stream beyond the upstream's pacing.
 */
export async function pacedStreams(target: StreamTarget, options: PacedOptions): Promise<PacedResult> {
  const pool = new Pool(target.origin, {
    connections: options.connections ?? options.concurrency + 64,
    ...(options.connectTimeoutMs === undefined ? {} : { connect: { timeout: options.connectTimeoutMs } }),
    pipelining: 1,
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
  });
  const gaps = new MsHistogram();
  const holdGaps = new MsHistogram();
  const durations = new MsHistogram();
  let inFlight = 0;
  let maxInFlight = 0;
  let started = 0;
  let completed = 0;
  let failures = 0;
  let cut = 0;
  let cutting = false;
  let recording = true;
  let firstFailure: string | undefined;
  let framesPerStream = 0;
  let starting = true;
  let minHeld = Infinity;

  const holdStart = performance.now() + options.rampMs;
  const launch = () => {
    if (!starting) return;
    inFlight++;
    started++;
    if (inFlight > maxInFlight) maxInFlight = inFlight;
    let last = NaN;
    void timedRequest(pool, target, (now) => {
      if (!Number.isNaN(last) && recording) {
        gaps.record(now - last - options.paceMs);
        if (now >= holdStart) holdGaps.record(now - last - options.paceMs);
      }
      last = now;
    }).then((t) => {
      inFlight--;
      if (t.complete) {
        completed++;
        durations.record(t.totalMs);
        framesPerStream = t.frames;
      } else if (cutting) {
        cut++;
      } else {
        failures++;
        firstFailure ??= t.error ?? `status ${t.status}, ${t.frames} frames, no terminal event`;
      }
      launch();
    });
  };

  const loopDelay = monitorEventLoopDelay({ resolution: 5 });
  loopDelay.enable();
  const timers: NodeJS.Timeout[] = [];
  for (let i = 0; i < options.concurrency; i++) {
    timers.push(setTimeout(launch, (i * options.rampMs) / options.concurrency));
  }
  const sampler = setInterval(() => {
    if (performance.now() >= holdStart && starting) minHeld = Math.min(minHeld, inFlight);
  }, 50);
  await new Promise((r) => setTimeout(r, options.rampMs + options.holdMs));
  starting = false;
  loopDelay.disable();
  clearInterval(sampler);
  for (const t of timers) clearTimeout(t);
  if (options.atHoldEnd) {
    recording = false;
    await options.atHoldEnd();
  }
  if (options.cutAtEnd) cutting = true;
  const drainEnd = performance.now() + (options.cutAtEnd ? 0 : options.drainMs);
  while (inFlight > 0 && performance.now() < drainEnd) await new Promise((r) => setTimeout(r, 20));
  if (inFlight > 0 && !cutting) firstFailure ??= `${inFlight} streams still open ${options.drainMs} ms after the hold`;
  // Destroying the pool fails the stuck streams, which count themselves as failures.
  await pool.destroy();
  await new Promise((r) => setImmediate(r));
  return {
    started,
    completed,
    failures,
    cut,
    ...(firstFailure ? { firstFailure } : {}),
    minHeld: Number.isFinite(minHeld) ? minHeld : 0,
    maxInFlight,
    excessGap: {
      p50: gaps.percentile(50),
      p99: gaps.percentile(99),
      p999: gaps.percentile(99.9),
      max: gaps.max,
      over100ms: gaps.countAbove(100),
      samples: gaps.count,
    },
    holdExcessGap: { p99: holdGaps.percentile(99), max: holdGaps.max, samples: holdGaps.count },
    streamMs: { p50: durations.percentile(50), p99: durations.percentile(99), max: durations.max },
    framesPerStream,
    clientLoopDelayMs: { p99: loopDelay.percentile(99) / 1e6, max: loopDelay.max / 1e6 },
  };
}
