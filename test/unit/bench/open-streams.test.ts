// The open-streams row's arithmetic: how many streams one gateway can hold under an open-files limit
// (two sockets each), when its peak RSS is judged against the 1 GiB (10,000) or 200 MiB (1,000),
// and the worst gap against FLOOR's + 50 ms.
import { describe, expect, it } from 'vitest';
import { LANES } from '../../../bench/lib/lanes.js';
import { heldEvents, openStreamsRows, streamsWithin, type OpenStreamsResult } from '../../../bench/lib/open-streams-memory.js';

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
  holdGapP99Ms: 2900,
  holdGapMaxMs: 3000,
  laneGapP99Ms: Object.fromEntries(LANES.map((l) => [l.id, l.kind === 'pass-through' ? 12 : 3000])),
  upstreamLateMaxMs: 5,
  clientLoopDelayP99Ms: 3,
  clientLoopDelayMaxMs: 20,
  gatewayCpuPct: 40,
  holdMajorGcs: 2,
  holdMajorGcPauseMaxMs: 14,
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
    expect(gaps!.gateway).toBe('max 3000.0 ms, p99 2900.0');
    expect(gaps!.ratio).toContain('with the ramp: max 3100.0 ms, p99 3000.0 (pass-through lanes 12.0)');
    // What sets the worst gap at 10,000 streams: the major GCs of the held streams' heap.
    expect(gaps!.ratio).toContain('gateway major GCs after the ramp: 2');
    expect(gaps!.values).toMatchObject({ holdMajorGcs: 2, holdMajorGcPauseMaxMs: 14 });
  });

  it('judges 1,000 held streams against 200 MiB, other counts only reported', () => {
    const held = (over: Partial<OpenStreamsResult>) => result({ requested: 1_000, streams: 1_000, paceMs: 20, held: 1_000, ...over });
    const [peak] = openStreamsRows(held({ peakRssMiB: 183 }), LANES);
    expect(peak!.scenario).toBe('peak RSS, 1,000 open streams, 1 event / 20 ms (VmHWM)');
    expect(peak!.target).toBe('≤200 MiB');
    expect(peak!.result).toBe('pass');
    expect(openStreamsRows(held({ peakRssMiB: 201 }), LANES)[0]!.result).toBe('miss');
    expect(openStreamsRows(held({ requested: 2_000, streams: 2_000 }), LANES)[0]!.result).toBe('info');
  });

  it('judges the worst gap after the ramp against FLOOR’s + 50 ms, inconclusive when FLOOR itself lost streams', () => {
    const floor = { held: 10_000, failures: 0, gapP99Ms: 60, gapMaxMs: 900, holdGapP99Ms: 40, holdGapMaxMs: 300, upstreamLateMaxMs: 250, clientLoopDelayP99Ms: 2, clientLoopDelayMaxMs: 15, cpuPct: 30 };
    const gaps = (over: Partial<OpenStreamsResult>) => openStreamsRows(result(over), LANES)[2]!;
    expect(gaps({}).result).toBe('info');
    // The ramp's worse gaps (opening the connections) are shown, not judged.
    expect(gaps({ holdGapMaxMs: 350, gapMaxMs: 2000, floor }).result).toBe('pass');
    expect(gaps({ holdGapMaxMs: 350.1, floor }).result).toBe('miss');
    expect(gaps({ holdGapMaxMs: 350.1, floor }).floor).toBe('max 300.0 ms, p99 40.0');
    expect(gaps({ holdGapMaxMs: 350, gapMaxMs: 2000, floor }).ratio).toContain('with the ramp: max 2000.0 ms');
    expect(openStreamsRows(result({ floor }), LANES)[0]!.cpuFloor).toBe('30% of a CPU');
    expect(gaps({ floor: { ...floor, failures: 3 } }).result).toBe('inconclusive');
    expect(gaps({ floor: { ...floor, held: 9_000 } }).result).toBe('inconclusive');
  });

  it('makes every stream outlast the ramp, the hold and a minute of measurements', () => {
    expect(heldEvents({ rampMs: 3_000, holdMs: 10_000, paceMs: 20 })).toBe(3_650);
    expect(heldEvents({ rampMs: 30_000, holdMs: 40_000, paceMs: 1000 })).toBe(130);
  });
});
