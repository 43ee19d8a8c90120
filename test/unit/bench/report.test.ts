// The bench report's arithmetic and verdicts: CPU per request ratios, the JSON-FLOOR column, the
// issue-14 targets, the warn row beside the default one, and the memory rows.
import { describe, expect, it } from 'vitest';
import { LANES, baselineCells, gatewayCell } from '../../../bench/lib/lanes.js';
import { buildRows, formatTable, TARGETS, type RawResults, type SatRun } from '../../../bench/lib/report.js';

const lane = LANES.find((l) => l.id === 'messages-messages')!;
const [direct, floor, jsonFloor] = baselineCells(['messages']);

function sat(rps: number, cpuUs: number): SatRun[] {
  return [0, 1, 2].map((run) => ({
    run, rps, ok: rps * 4, non2xx: 0, errors: 0, timeouts: 0, cpuUsPerRequest: cpuUs,
    sutCpuS: (cpuUs * rps * 4) / 1e6, sutCpuPct: 100, auxCpuPct: 50, foreignCpuPct: 5, stealCpuPct: 0, attempts: 1,
  }));
}

function raw(gatewayRps: number, gatewayCpuUs: number): RawResults {
  return {
    satJson: {
      [direct!.key]: sat(10_000, 50),
      [floor!.key]: sat(4000, 200),
      [jsonFloor!.key]: sat(3000, 280),
      [gatewayCell(lane).key]: sat(gatewayRps, gatewayCpuUs),
      [gatewayCell(lane, 'gateway-warn').key]: sat(gatewayRps * 1.2, gatewayCpuUs / 1.2),
    },
    satStream: {}, rate: {}, ratePooled: {}, ttfb: {}, ttfbPooled: {}, paced: {}, memory: {}, memoryTimeline: [],
    memoryPeaks: {
      paced: { peakRssMiB: 180, probe: { rssMiB: 180, heapUsedMiB: 60, heapTotalMiB: 90, externalMiB: 20, arrayBuffersMiB: 12, poolSockets: 1000, otherTcpHandles: 1001, maxPoolSockets: 1000, maxOtherTcpHandles: 1001 } },
    },
    broken: {},
  };
}

function rows(r: RawResults) {
  return buildRows({
    raw: r,
    lanes: [lane],
    cellsByLane: new Map([[lane.id, { direct: direct!, floor: floor!, jsonFloor: jsonFloor!, gateway: gatewayCell(lane), warn: gatewayCell(lane, 'gateway-warn') }]]),
    pacedConcurrency: 1000,
    gatewayMeasured: true,
    scenarios: new Set(['sat-json']),
  });
}

describe('bench report', () => {
  it('puts throughput and CPU ratios to FLOOR and JSON-FLOOR on the default row and judges all three targets', () => {
    const [main, warn] = rows(raw(2800, 380));
    expect(main!.lane).toBe('messages→messages');
    expect(main!.ratio).toBe('0.70×');
    expect(main!.ratioJsonFloor).toBe('0.93×');
    expect(main!.cpuFloor).toBe('200 ±0%');
    expect(main!.cpuJsonFloor).toBe('280 ±0%');
    expect(main!.cpuGateway).toBe('380 ±0%');
    expect(main!.cpuRatio).toBe('1.90×');
    expect(main!.cpuRatioJsonFloor).toBe('1.36×');
    expect(main!.result).toBe('pass');
    expect(warn!.lane).toBe('messages→messages (log warn)');
    expect(warn!.result).toBe('info');
  });

  it('puts the store: false row of a Responses-door lane right after its default (store unset) row', () => {
    const rlane = LANES.find((l) => l.id === 'responses-messages')!;
    const r = raw(2800, 380);
    r.satJson[gatewayCell(rlane).key] = sat(2000, 450);
    r.satJson[gatewayCell(rlane, 'gateway-nostore').key] = sat(2800, 380);
    const out = buildRows({
      raw: r,
      lanes: [rlane],
      cellsByLane: new Map([[rlane.id, { direct: direct!, floor: floor!, jsonFloor: jsonFloor!, gateway: gatewayCell(rlane), nostore: gatewayCell(rlane, 'gateway-nostore') }]]),
      pacedConcurrency: 1000,
      gatewayMeasured: true,
      scenarios: new Set(['sat-json']),
    });
    const [main, nostore] = out;
    expect(main!.lane).toBe('responses→messages');
    expect(main!.cpuGateway).toBe('450 ±0%');
    expect(nostore!.lane).toBe('responses→messages (store: false)');
    expect(nostore!.cpuGateway).toBe('380 ±0%');
    expect(nostore!.result).toBe('info');
  });

  it('misses when only the JSON-FLOOR ratio or only the CPU ratio is short', () => {
    // 0.6× FLOOR but 0.8× JSON-FLOOR.
    expect(rows(raw(2400, 300))[0]!.result).toBe('miss');
    // Throughput fine, CPU 2.5× FLOOR's.
    expect(rows(raw(2800, 500))[0]!.result).toBe('miss');
    expect(TARGETS.satJson['pass-through']).toEqual({ minFloor: 0.5, minJsonFloor: 0.9, maxCpuFloor: 2 });
  });

  it('reports the relaunched paced streams’ peak RSS with its breakdown, unjudged (held streams carry the 200 MiB target)', () => {
    const all = rows(raw(2800, 380));
    const mem = all.find((r) => r.scenario.startsWith('peak RSS, 1000 paced 1-s streams relaunched'))!;
    expect(mem.gateway).toBe('180.0 MiB');
    expect(mem.ratio).toContain('heap 60/90 MiB');
    expect(mem.ratio).toContain('1000 pool sockets');
    expect(mem.target).toBe('(report)');
    expect(mem.result).toBe('info');
    expect(formatTable(all)).toContain('CPU vs JSON-FLOOR');
  });
});
