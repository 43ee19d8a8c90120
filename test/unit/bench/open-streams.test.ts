// The open-streams row's arithmetic: how many streams one gateway can hold under an open-files limit
// (two sockets each), and when its peak RSS is judged against the 1 GiB.
import { describe, expect, it } from 'vitest';
import { LANES } from '../../../bench/lib/lanes.js';
import { openStreamsRows, streamsWithin, type OpenStreamsResult } from '../../../bench/lib/open-streams-memory.js';

const result = (over: Partial<OpenStreamsResult>): OpenStreamsResult => ({
  requested: 10_000,
  streams: 10_000,
  fdLimit: 65_536,
  fdCapped: false,
  paceMs: 1000,
  rampMs: 30_000,
  holdMs: 10_000,
  lanes: LANES.map((l) => l.id),
  storeFalse: false,
  held: 10_000,
  openAtPlateau: 10_000,
  completed: 0,
  cut: 10_000,
  failures: 0,
  peakRssMiB: 600,
  probe: null,
  idle: { heapUsedMiB: 22, heapTotalMiB: 30, externalMiB: 3, arrayBuffersMiB: 1, rssMiB: 90, gcMs: 20 },
  plateau: { heapUsedMiB: 282, heapTotalMiB: 300, externalMiB: 45, arrayBuffersMiB: 40, rssMiB: 580, gcMs: 900 },
  liveHeapPerStreamKiB: 26.6,
  gapP99Ms: 3000,
  gapMaxMs: 3100,
  gapsOver100ms: 10,
  laneGapP99Ms: Object.fromEntries(LANES.map((l) => [l.id, l.kind === 'pass-through' ? 12 : 3000])),
  upstreamLateMaxMs: 5,
  gatewayCpuPct: 40,
  ...over,
});

describe('open-streams row', () => {
  it('holds as many streams as two sockets each fit under the open-files limit, with a reserve', () => {
    expect(streamsWithin(20_000, 10_000)).toBe(9_850);
    expect(streamsWithin(1_048_576, 10_000)).toBe(10_000);
    expect(streamsWithin(Number.NaN, 10_000)).toBe(10_000);
    expect(streamsWithin(200, 10_000)).toBe(0);
  });

  it('judges the peak against 1 GiB only at the issue’s count; reports live heap and pass-through gaps', () => {
    const [peak, live, gaps] = openStreamsRows(result({}), LANES);
    expect(peak!.target).toBe('≤1024 MiB');
    expect(peak!.result).toBe('pass');
    expect(openStreamsRows(result({ peakRssMiB: 1100 }), LANES)[0]!.result).toBe('miss');
    // Capped by the descriptors: 9,850 of 10,000 (98.5 %) is still judged; half of it is only reported.
    expect(openStreamsRows(result({ streams: 9_850, fdCapped: true }), LANES)[0]!.result).toBe('pass');
    expect(openStreamsRows(result({ streams: 5_000, fdCapped: true }), LANES)[0]!.result).toBe('info');
    expect(live!.gateway).toBe('26.6 KiB');
    expect(gaps!.gateway).toBe('pass-through 12.0 ms, all lanes 3000.0 ms');
  });
});
