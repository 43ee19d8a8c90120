// The slice of autocannon 8's programmatic API the bench uses (the package ships no types).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  interface Options {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    connections?: number;
    pipelining?: number;
    /** Seconds. */
    duration?: number;
    /** Seconds. */
    timeout?: number;
    /** Requests per second over all connections (0 = as fast as possible). */
    overallRate?: number;
    amount?: number;
    maxOverallRequests?: number;
  }

  interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p99: number;
  }

  interface Result {
    duration: number;
    start: Date;
    finish: Date;
    errors: number;
    timeouts: number;
    non2xx: number;
    resets: number;
    '2xx': number;
    requests: Histogram;
    latency: Histogram;
    throughput: Histogram;
    statusCodeStats: Record<string, { count: number }>;
  }

  interface Instance extends EventEmitter, PromiseLike<Result> {
    stop(): void;
  }

  function autocannon(options: Options): Instance;
  export default autocannon;
}
