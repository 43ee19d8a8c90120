// autocannon, in this process (which sits on the aux CPU): closed-loop saturation. (The fixed-rate
// latency scenario uses fixed-rate.ts instead: autocannon's rate limit releases each connection's
// quota in a burst at every second boundary, and its latency histogram has 1 ms buckets.)
import autocannon from 'autocannon';

export interface Target {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface SaturationResult {
  rps: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  elapsedS: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
}

export async function saturate(target: Target, connections: number, durationS: number): Promise<SaturationResult> {
  const t0 = performance.now();
  const result = await autocannon({
    url: target.url,
    method: 'POST',
    headers: target.headers,
    body: target.body,
    connections,
    pipelining: 1,
    duration: durationS,
    timeout: 10,
  });
  const elapsedS = (performance.now() - t0) / 1000;
  const ok = result['2xx'];
  return {
    // autocannon's own duration excludes our call overhead; use it when present.
    rps: ok / (result.duration > 0 ? result.duration : elapsedS),
    ok,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    elapsedS,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
  };
}

