// Turns the raw measurements into the result table (scenario, DIRECT, FLOOR, gateway, ratio, target,
// pass/miss). Throughput ratios are computed within one run (the gateway's run r against FLOOR's run r,
// measured moments apart) and the median over runs is reported with its spread; latency percentiles
// pool the samples of all interleaved runs (a p99 of one short run is a handful of samples).
// "other load" is the CPU used by processes that are not the bench's during those measurements: on a
// shared machine, a high value means the figures on that row are noisy.
import type { Cell, Lane } from './lanes.js';
import { median, spread, type Summary } from './stats.js';
import type { PacedResult } from './stream-clients.js';

export interface Cpu {
  sutCpuPct: number;
  auxCpuPct: number;
  foreignCpuPct: number;
  stealCpuPct: number;
  /** 2 when the first try was disturbed by other processes and redone. */
  attempts: number;
}

export interface SatRun extends Cpu {
  run: number;
  rps: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
}

export interface RateRun extends Cpu {
  run: number;
  samples: number;
  achievedRps: number;
  p50Us: number;
  p90Us: number;
  p99Us: number;
  maxUs: number;
  failures: number;
  maxLatenessMs: number;
}

export interface TtfbRun extends Cpu {
  run: number;
  samples: number;
  failures: number;
  firstFailure?: string;
  headersP50Us: number;
  ttfbP50Us: number;
  ttfbP99Us: number;
  totalP50Us: number;
  totalP99Us: number;
  framesPerStream: number;
}

export interface PacedRun extends PacedResult, Cpu {
  concurrency: number;
  upstreamMaxActive: number | null;
  /** Worst lateness of the paced upstream's own schedule (ms): apparatus jitter, not the SUT's. */
  upstreamLateMaxMs: number | null;
}

export interface RawResults {
  satJson: Record<string, SatRun[]>;
  satStream: Record<string, SatRun[]>;
  rate: Record<string, RateRun[]>;
  /** Fixed-rate latency over all runs' samples, µs. */
  ratePooled: Record<string, Summary>;
  ttfb: Record<string, TtfbRun[]>;
  /** TTFB and total stream time over all runs' samples, µs. */
  ttfbPooled: Record<string, { ttfb: Summary; total: Summary }>;
  paced: Record<string, PacedRun>;
  memory: Record<string, { peakRssMiB: number; rssMiB: number }>;
  memoryTimeline: Record<string, number | string>[];
  /** Cells that failed their pre-flight check or a measurement, with the reason. */
  broken: Record<string, string>;
}

export interface Row {
  scenario: string;
  lane: string;
  direct: string;
  floor: string;
  gateway: string;
  ratio: string;
  target: string;
  result: 'pass' | 'miss' | 'inconclusive' | 'info' | 'error' | 'skipped';
  /** Median CPU % of other processes on the machine during this row's measurements. */
  otherLoad: string;
  /** The numbers behind the strings. */
  values: Record<string, number | string | boolean | null>;
}

const int = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '—');
const us = (n: number) => (Number.isFinite(n) ? `${Math.round(n).toLocaleString('en-US')} µs` : '—');
const signedUs = (n: number) => (Number.isFinite(n) ? `${n >= 0 ? '+' : '−'}${Math.round(Math.abs(n)).toLocaleString('en-US')} µs` : '—');
const ms = (n: number) => (Number.isFinite(n) ? `${n.toFixed(1)} ms` : '—');
const pct = (n: number) => (Number.isFinite(n) ? `${(n * 100).toFixed(0)}%` : '—');
const withSpread = (values: number[], fmt: (n: number) => string) =>
  values.length === 0 ? '—' : values.length > 1 ? `${fmt(median(values))} ±${pct(spread(values) / 2)}` : fmt(median(values));
/**
 * A saturation figure is only the system's own limit when the system was the busy side. When the load
 * generator and fake upstream (sharing the aux CPU) were saturated instead, the figure is a lower bound
 * for that system: marked with `*`.
 */
export const AUX_BOUND_MARK = '*';
const auxBound = (runs: SatRun[] | undefined) =>
  runs !== undefined && runs.length > 0 && median(runs.map((r) => r.auxCpuPct)) >= 90 && median(runs.map((r) => r.sutCpuPct)) < 90;
const satCell = (runs: SatRun[] | undefined) => withSpread((runs ?? []).map((r) => r.rps), int) + (auxBound(runs) ? AUX_BOUND_MARK : '');
const loadOf = (...groups: (Cpu[] | Cpu | undefined)[]) => {
  const all = groups.flatMap((g) => (g === undefined ? [] : Array.isArray(g) ? g : [g])).map((r) => r.foreignCpuPct);
  return all.length ? `${median(all).toFixed(0)}%` : '';
};

/** Pairs the values of two cells run by run. */
function perRun<T extends { run: number }>(a: T[] | undefined, b: T[] | undefined, f: (x: T, y: T) => number): number[] {
  if (!a || !b) return [];
  const out: number[] = [];
  for (const x of a) {
    const y = b.find((v) => v.run === x.run);
    if (y) {
      const v = f(x, y);
      if (Number.isFinite(v)) out.push(v);
    }
  }
  return out;
}

export interface ReportInput {
  raw: RawResults;
  lanes: Lane[];
  cellsByLane: Map<string, { direct: Cell; floor: Cell; gateway: Cell; nometrics?: Cell }>;
  pacedConcurrency: number;
  gatewayMeasured: boolean;
  /** Scenarios that ran (rows of the others are left out). */
  scenarios: Set<string>;
}

export function buildRows(input: ReportInput): Row[] {
  const { raw, lanes, cellsByLane } = input;
  const rows: Row[] = [];
  const verdict = (ok: boolean | null): Row['result'] => (ok === null ? 'skipped' : ok ? 'pass' : 'miss');

  const saturationRows = (scenario: string, data: Record<string, SatRun[]>, targets: Record<Lane['kind'], number>, unit: string) => {
    for (const lane of lanes) {
      const c = cellsByLane.get(lane.id)!;
      const d = data[c.direct.key];
      const f = data[c.floor.key];
      const g = data[c.gateway.key];
      const ratios = perRun(g, f, (x, y) => x.rps / y.rps);
      const target = targets[lane.kind];
      const broken = raw.broken[c.gateway.key];
      const ratio = median(ratios);
      rows.push({
        scenario,
        lane: lane.label,
        direct: satCell(d),
        floor: satCell(f),
        gateway: broken ? 'error' : satCell(g),
        ratio: ratios.length ? `${ratio.toFixed(2)}× FLOOR${auxBound(f) ? ' (upper bound)' : ''}` : '—',
        target: `≥${target.toFixed(1)}× FLOOR`,
        result: broken ? 'error' : ratios.length ? verdict(ratio >= target) : 'skipped',
        otherLoad: loadOf(d, f, g),
        values: {
          unit,
          directRps: median((d ?? []).map((r) => r.rps)),
          floorRps: median((f ?? []).map((r) => r.rps)),
          gatewayRps: median((g ?? []).map((r) => r.rps)),
          ratioToFloor: ratio,
          ratioSpread: spread(ratios),
          gatewayToDirect: median(perRun(g, d, (x, y) => x.rps / y.rps)),
          floorToDirect: median(perRun(f, d, (x, y) => x.rps / y.rps)),
          directSutCpuPct: median((d ?? []).map((r) => r.sutCpuPct)),
          directAuxCpuPct: median((d ?? []).map((r) => r.auxCpuPct)),
          floorSutCpuPct: median((f ?? []).map((r) => r.sutCpuPct)),
          floorAuxCpuPct: median((f ?? []).map((r) => r.auxCpuPct)),
          gatewaySutCpuPct: median((g ?? []).map((r) => r.sutCpuPct)),
          gatewayAuxCpuPct: median((g ?? []).map((r) => r.auxCpuPct)),
          foreignCpuPct: median([...(d ?? []), ...(f ?? []), ...(g ?? [])].map((r) => r.foreignCpuPct)),
          directAuxBound: auxBound(d),
          floorAuxBound: auxBound(f),
          gatewayAuxBound: auxBound(g),
          error: broken ?? null,
        },
      });
    }
  };

  const ran = input.scenarios;
  if (ran.has('sat-json')) saturationRows('saturation, non-streamed (req/s)', raw.satJson, { 'pass-through': 0.8, translation: 0.6 }, 'req/s');
  if (ran.has('sat-stream')) saturationRows(`saturation, streams (streams/s)`, raw.satStream, { 'pass-through': 0.7, translation: 0.3 }, 'streams/s');

  for (const [which, limit] of ran.has('rate') ? ([['p50', 150], ['p99', 1000]] as const) : []) {
    for (const lane of lanes) {
      const c = cellsByLane.get(lane.id)!;
      const key = which === 'p50' ? 'p50Us' : 'p99Us';
      const d = raw.rate[c.direct.key];
      const f = raw.rate[c.floor.key];
      const g = raw.rate[c.gateway.key];
      const pd = raw.ratePooled[c.direct.key]?.[which] ?? NaN;
      const pf = raw.ratePooled[c.floor.key]?.[which] ?? NaN;
      const pg = raw.ratePooled[c.gateway.key]?.[which] ?? NaN;
      const added = pg - pf;
      const broken = raw.broken[c.gateway.key];
      const pooledWithSpread = (pooled: number, runs: RateRun[] | undefined) =>
        Number.isFinite(pooled) ? `${us(pooled)}${runs && runs.length > 1 ? ` ±${pct(spread(runs.map((r) => r[key])) / 2)}` : ''}` : '—';
      rows.push({
        scenario: `latency at fixed rate, ${which}`,
        lane: lane.label,
        direct: pooledWithSpread(pd, d),
        floor: pooledWithSpread(pf, f),
        gateway: broken ? 'error' : pooledWithSpread(pg, g),
        ratio: Number.isFinite(added) ? `${signedUs(added)} vs FLOOR` : '—',
        target: `≤+${limit.toLocaleString('en-US')} µs`,
        result: broken ? 'error' : Number.isFinite(added) ? verdict(added <= limit) : 'skipped',
        otherLoad: loadOf(d, f, g),
        values: {
          directUs: pd,
          floorUs: pf,
          gatewayUs: pg,
          addedOverFloorUs: added,
          addedOverDirectUs: pg - pd,
          addedOverFloorPerRunMedianUs: median(perRun(g, f, (x, y) => x[key] - y[key])),
          error: broken ?? null,
        },
      });
    }
  }

  const streamLatencyRows = (which: 'ttfb' | 'total') => {
    for (const lane of lanes) {
      const c = cellsByLane.get(lane.id)!;
      const d = raw.ttfb[c.direct.key];
      const f = raw.ttfb[c.floor.key];
      const g = raw.ttfb[c.gateway.key];
      const pd = raw.ttfbPooled[c.direct.key]?.[which].p50 ?? NaN;
      const pf = raw.ttfbPooled[c.floor.key]?.[which].p50 ?? NaN;
      const pg = raw.ttfbPooled[c.gateway.key]?.[which].p50 ?? NaN;
      const perRunKey = which === 'ttfb' ? 'ttfbP50Us' : 'totalP50Us';
      const broken = raw.broken[c.gateway.key];
      const added = pg - pf;
      const show = (pooled: number, runs: TtfbRun[] | undefined) =>
        Number.isFinite(pooled) ? `${us(pooled)}${runs && runs.length > 1 ? ` ±${pct(spread(runs.map((r) => r[perRunKey])) / 2)}` : ''}` : '—';
      rows.push({
        scenario: which === 'ttfb' ? 'stream time to first byte, p50' : 'stream total time, p50',
        lane: lane.label,
        direct: show(pd, d),
        floor: show(pf, f),
        gateway: broken ? 'error' : show(pg, g),
        ratio: Number.isFinite(added) ? `${signedUs(added)} vs FLOOR` : '—',
        target: which === 'ttfb' ? '≤+300 µs' : '(report)',
        result: broken ? 'error' : which === 'total' ? 'info' : Number.isFinite(added) ? verdict(added <= 300) : 'skipped',
        otherLoad: loadOf(d, f, g),
        values: {
          directUs: pd,
          floorUs: pf,
          gatewayUs: pg,
          addedOverFloorUs: added,
          addedOverDirectUs: pg - pd,
          gatewayP99Us: raw.ttfbPooled[c.gateway.key]?.[which].p99 ?? null,
          floorP99Us: raw.ttfbPooled[c.floor.key]?.[which].p99 ?? null,
          error: broken ?? null,
        },
      });
    }
  };
  if (ran.has('ttfb')) {
    streamLatencyRows('ttfb');
    streamLatencyRows('total');
  }

  for (const lane of lanes) {
    const c = cellsByLane.get(lane.id)!;
    const d = raw.paced[c.direct.key];
    const f = raw.paced[c.floor.key];
    const g = raw.paced[c.gateway.key];
    if (!d && !f && !g) continue;
    const show = (r: PacedRun | undefined) =>
      r ? `${r.minHeld} held, max +${ms(r.excessGap.max)}${r.failures ? `, ${r.failures} failed` : ''}` : '—';
    const broken = raw.broken[c.gateway.key];
    const n = input.pacedConcurrency;
    const clean = (r: PacedRun) => r.failures === 0 && r.minHeld >= n && r.excessGap.over100ms === 0;
    const ok = g ? clean(g) : null;
    // FLOOR carries the same load on the same apparatus: if even FLOOR shows such gaps, the load
    // generator and fake upstream (sharing the aux CPU) are the limit, and the row proves nothing.
    const apparatusLimited = ok === false && f !== undefined && !clean(f);
    rows.push({
      scenario: `${n} concurrent paced streams`,
      lane: lane.label,
      direct: show(d),
      floor: show(f),
      gateway: broken ? 'error' : show(g),
      ratio: g ? `gap p99 +${ms(g.excessGap.p99)}` : '—',
      target: '≥1,000, no gap >+100 ms',
      result: broken ? 'error' : ok === null ? 'skipped' : n < 1000 ? 'info' : apparatusLimited ? 'inconclusive' : verdict(ok),
      otherLoad: loadOf(d, f, g),
      values: {
        concurrency: n,
        apparatusLimited,
        upstreamLateMaxMs: g?.upstreamLateMaxMs ?? null,
        clientLoopDelayMaxMs: g?.clientLoopDelayMs.max ?? null,
        gatewayMinHeld: g?.minHeld ?? null,
        gatewayMaxExcessMs: g?.excessGap.max ?? null,
        gatewayP99ExcessMs: g?.excessGap.p99 ?? null,
        gatewayGapsOver100ms: g?.excessGap.over100ms ?? null,
        gatewaySutCpuPct: g?.sutCpuPct ?? null,
        gatewayAuxCpuPct: g?.auxCpuPct ?? null,
        floorMaxExcessMs: f?.excessGap.max ?? null,
        floorGapsOver100ms: f?.excessGap.over100ms ?? null,
        directMaxExcessMs: d?.excessGap.max ?? null,
        directGapsOver100ms: d?.excessGap.over100ms ?? null,
      },
    });
  }

  for (const lane of lanes) {
    const c = cellsByLane.get(lane.id)!;
    if (!c.nometrics) continue;
    for (const [label, data] of [['non-streamed', raw.satJson], ['streams', raw.satStream]] as const) {
      const on = data[c.gateway.key];
      const off = data[c.nometrics.key];
      if (!on || !off) continue;
      const costs = perRun(on, off, (x, y) => 1 - x.rps / y.rps);
      const cost = median(costs);
      rows.push({
        scenario: `metrics on vs off, saturation ${label}`,
        lane: lane.label,
        direct: '',
        floor: '',
        gateway: `on ${int(median(on.map((r) => r.rps)))} / off ${int(median(off.map((r) => r.rps)))}`,
        ratio: costs.length ? `cost ${(cost * 100).toFixed(1)}%` : '—',
        target: '≤5% throughput',
        result: costs.length ? verdict(cost <= 0.05) : 'skipped',
        otherLoad: loadOf(on, off),
        values: { onRps: median(on.map((r) => r.rps)), offRps: median(off.map((r) => r.rps)), cost, costSpread: spread(costs) },
      });
    }
  }

  if (input.gatewayMeasured) {
    const gw = raw.memory['gateway'];
    rows.push({
      scenario: 'peak RSS (VmHWM, whole run)',
      lane: 'all',
      // DIRECT and FLOOR run under the tsx loader (an extra thread and isolate): their RSS is not comparable.
      direct: '',
      floor: '',
      gateway: gw ? `${gw.peakRssMiB.toFixed(1)} MiB` : '—',
      ratio: '',
      target: '≤150 MiB',
      result: gw && Number.isFinite(gw.peakRssMiB) ? verdict(gw.peakRssMiB <= 150) : 'skipped',
      otherLoad: '',
      values: { gatewayPeakRssMiB: gw?.peakRssMiB ?? null, nometricsPeakRssMiB: raw.memory['gateway-nometrics']?.peakRssMiB ?? null, gatewayRssAtEndMiB: gw?.rssMiB ?? null },
    });
  }
  return rows;
}

export function formatTable(rows: Row[]): string {
  const header = ['scenario', 'lane', 'DIRECT', 'FLOOR', 'gateway', 'ratio / added', 'target', 'result', 'other load'];
  const cells = rows.map((r) => [r.scenario, r.lane, r.direct, r.floor, r.gateway, r.ratio, r.target, r.result.toUpperCase(), r.otherLoad]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => c.map((v, i) => v.padEnd(widths[i]!)).join('  ').trimEnd();
  const out = [line(header), widths.map((w) => '-'.repeat(w)).join('  ')];
  let last = '';
  for (const c of cells) {
    if (c[0] !== last && last !== '') out.push('');
    last = c[0]!;
    out.push(line(c));
  }
  return out.join('\n');
}
