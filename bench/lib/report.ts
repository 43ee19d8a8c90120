// Turns the raw measurements into the result table (scenario, DIRECT, FLOOR, JSON-FLOOR, gateway, ratios,
// CPU per request, target, pass/miss). Throughput and CPU ratios are computed within one run (the
// gateway's run r against FLOOR's run r, measured moments apart) and the median over runs is reported
// with its spread; latency percentiles pool the samples of all interleaved runs (a p99 of one short run
// is a handful of samples). CPU per request (the system's CPU time / requests completed) is far steadier
// than req/s on a small shared machine: it does not depend on how much CPU the system got.
// "other load" is the CPU used by processes that are not the bench's during those measurements: on a
// shared machine, a high value means the figures on that row are noisy.
import type { Cell, Lane } from './lanes.js';
import { median, spread, type Summary } from './stats.js';
import type { PacedResult } from './stream-clients.js';

export interface Cpu {
  /** CPU seconds of the system under test over the measurement. */
  sutCpuS: number;
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
  /** CPU µs of the system under test per completed request (per stream for streams). */
  cpuUsPerRequest: number;
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

/** The gateway's memory at the highest RSS its probe sampled (lib/memory-probe.mjs). */
export interface MemoryProbeSample {
  rssMiB: number;
  heapUsedMiB: number;
  heapTotalMiB: number;
  externalMiB: number;
  arrayBuffersMiB: number;
  poolSockets: number;
  otherTcpHandles: number;
  /** The most sockets seen at any sample of the phase. */
  maxPoolSockets: number;
  maxOtherTcpHandles: number;
}

export interface MemoryPeak {
  /** VmHWM over the phase. */
  peakRssMiB: number;
  probe: MemoryProbeSample | null;
  /** VmHWM could not be restarted before the phase: the figure is the whole run's. */
  wholeRun?: boolean;
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
  /** The default gateway's peak at saturation and under the paced streams. */
  memoryPeaks: { saturation?: MemoryPeak; paced?: MemoryPeak };
  /** Bytes of log each gateway wrote over the run. */
  logBytes?: Record<string, number>;
  /** Cells that failed their pre-flight check or a measurement, with the reason. */
  broken: Record<string, string>;
}

export interface Row {
  scenario: string;
  lane: string;
  direct: string;
  floor: string;
  jsonFloor: string;
  gateway: string;
  ratio: string;
  /** gateway against JSON-FLOOR (throughput ratio or added latency). */
  ratioJsonFloor: string;
  /** CPU µs per request (per stream on stream rows) of FLOOR, JSON-FLOOR, gateway, and the ratios. */
  cpuFloor: string;
  cpuJsonFloor: string;
  cpuGateway: string;
  cpuRatio: string;
  cpuRatioJsonFloor: string;
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

export interface LaneCells {
  direct: Cell;
  floor: Cell;
  jsonFloor: Cell;
  gateway: Cell;
  warn?: Cell;
  nometrics?: Cell;
  /** Responses-door lanes: the default gateway sent `store: false`. */
  nostore?: Cell;
}

export interface ReportInput {
  raw: RawResults;
  lanes: Lane[];
  cellsByLane: Map<string, LaneCells>;
  pacedConcurrency: number;
  gatewayMeasured: boolean;
  /** Scenarios that ran (rows of the others are left out). */
  scenarios: Set<string>;
}

/** Issue 14's targets for the default config. `null`: no target on that measure for that lane kind. */
interface SaturationTargets {
  minFloor: number;
  minJsonFloor: number | null;
  maxCpuFloor: number | null;
  /** CPU per request (stream) at most this multiple of JSON-FLOOR's (issue 25's translated streams). */
  maxCpuJsonFloor?: number;
}

export const TARGETS = {
  satJson: {
    'pass-through': { minFloor: 0.5, minJsonFloor: 0.9, maxCpuFloor: 2 },
    translation: { minFloor: 0.45, minJsonFloor: null, maxCpuFloor: 2.5 },
  } satisfies Record<Lane['kind'], SaturationTargets>,
  satStream: {
    'pass-through': { minFloor: 0.7, minJsonFloor: null, maxCpuFloor: null },
    // Issue 25: translated streams at ≥0.45× FLOOR and ≤1.5× JSON-FLOOR's CPU per stream.
    translation: { minFloor: 0.45, minJsonFloor: null, maxCpuFloor: null, maxCpuJsonFloor: 1.5 },
  } satisfies Record<Lane['kind'], SaturationTargets>,
  /** Added over FLOOR at the fixed rate, µs (issue 25: 150 on every lane). */
  rateP50AddedUs: 150,
  rateP99AddedUs: 1000,
  ttfbAddedUs: 300,
};

const EMPTY = { direct: '', floor: '', jsonFloor: '', ratioJsonFloor: '', cpuFloor: '', cpuJsonFloor: '', cpuGateway: '', cpuRatio: '', cpuRatioJsonFloor: '' };

export function buildRows(input: ReportInput): Row[] {
  const { raw, lanes, cellsByLane } = input;
  const rows: Row[] = [];
  const verdict = (ok: boolean | null): Row['result'] => (ok === null ? 'skipped' : ok ? 'pass' : 'miss');

  const saturationRows = (scenario: string, data: Record<string, SatRun[]>, targets: Record<Lane['kind'], SaturationTargets>, unit: string) => {
    for (const lane of lanes) {
      const c = cellsByLane.get(lane.id)!;
      const d = data[c.direct.key];
      const f = data[c.floor.key];
      const jf = data[c.jsonFloor.key];
      // The default config's row, then the `store: false` and `log.level: warn` variants' as labelled rows.
      for (const [cell, label] of [
        [c.gateway, lane.label],
        ...(c.nostore ? [[c.nostore, `${lane.label} (store: false)`] as const] : []),
        ...(c.warn ? [[c.warn, `${lane.label} (log warn)`] as const] : []),
      ] as const) {
        const g = data[cell.key];
        if (cell !== c.gateway && !g) continue;
        const ratios = perRun(g, f, (x, y) => x.rps / y.rps);
        const ratiosJson = perRun(g, jf, (x, y) => x.rps / y.rps);
        const cpuRatios = perRun(g, f, (x, y) => x.cpuUsPerRequest / y.cpuUsPerRequest);
        const cpuRatiosJson = perRun(g, jf, (x, y) => x.cpuUsPerRequest / y.cpuUsPerRequest);
        const t = targets[lane.kind];
        const broken = raw.broken[cell.key];
        const ratio = median(ratios);
        const ratioJson = median(ratiosJson);
        const cpuRatio = median(cpuRatios);
        const checks: boolean[] = [];
        if (ratios.length) checks.push(ratio >= t.minFloor);
        if (t.minJsonFloor !== null && ratiosJson.length) checks.push(ratioJson >= t.minJsonFloor);
        if (t.maxCpuFloor !== null && cpuRatios.length) checks.push(cpuRatio <= t.maxCpuFloor);
        if (t.maxCpuJsonFloor !== undefined && cpuRatiosJson.length) checks.push(median(cpuRatiosJson) <= t.maxCpuJsonFloor);
        const cpuCell = (runs: SatRun[] | undefined) => withSpread((runs ?? []).map((r) => r.cpuUsPerRequest), int);
        const isDefault = cell === c.gateway;
        rows.push({
          scenario,
          lane: label,
          direct: satCell(d),
          floor: satCell(f),
          jsonFloor: satCell(jf),
          gateway: broken ? 'error' : satCell(g),
          ratio: ratios.length ? `${ratio.toFixed(2)}×${auxBound(f) ? ' (upper bound)' : ''}` : '—',
          ratioJsonFloor: ratiosJson.length ? `${ratioJson.toFixed(2)}×${auxBound(jf) ? ' (upper bound)' : ''}` : '—',
          cpuFloor: cpuCell(f),
          cpuJsonFloor: cpuCell(jf),
          cpuGateway: broken ? 'error' : cpuCell(g),
          cpuRatio: cpuRatios.length ? `${cpuRatio.toFixed(2)}×` : '—',
          cpuRatioJsonFloor: cpuRatiosJson.length ? `${median(cpuRatiosJson).toFixed(2)}×` : '—',
          target: [
            `≥${t.minFloor}× FLOOR`,
            ...(t.minJsonFloor !== null ? [`≥${t.minJsonFloor}× JSON-FLOOR`] : []),
            ...(t.maxCpuFloor !== null ? [`CPU ≤${t.maxCpuFloor}× FLOOR`] : []),
            ...(t.maxCpuJsonFloor !== undefined ? [`CPU ≤${t.maxCpuJsonFloor}× JSON-FLOOR`] : []),
          ].join(', '),
          // The targets are for the default config; the warn row is for reading beside it.
          result: broken ? 'error' : !isDefault ? 'info' : checks.length ? verdict(checks.every(Boolean)) : 'skipped',
          otherLoad: loadOf(d, f, jf, g),
          values: {
            unit,
            system: cell.system,
            directRps: median((d ?? []).map((r) => r.rps)),
            floorRps: median((f ?? []).map((r) => r.rps)),
            jsonFloorRps: median((jf ?? []).map((r) => r.rps)),
            gatewayRps: median((g ?? []).map((r) => r.rps)),
            ratioToFloor: ratio,
            ratioSpread: spread(ratios),
            ratioToJsonFloor: ratioJson,
            jsonFloorToFloor: median(perRun(jf, f, (x, y) => x.rps / y.rps)),
            gatewayToDirect: median(perRun(g, d, (x, y) => x.rps / y.rps)),
            floorToDirect: median(perRun(f, d, (x, y) => x.rps / y.rps)),
            directCpuUsPerRequest: median((d ?? []).map((r) => r.cpuUsPerRequest)),
            floorCpuUsPerRequest: median((f ?? []).map((r) => r.cpuUsPerRequest)),
            jsonFloorCpuUsPerRequest: median((jf ?? []).map((r) => r.cpuUsPerRequest)),
            gatewayCpuUsPerRequest: median((g ?? []).map((r) => r.cpuUsPerRequest)),
            cpuRatioToFloor: cpuRatio,
            cpuRatioToJsonFloor: median(cpuRatiosJson),
            directSutCpuPct: median((d ?? []).map((r) => r.sutCpuPct)),
            directAuxCpuPct: median((d ?? []).map((r) => r.auxCpuPct)),
            floorSutCpuPct: median((f ?? []).map((r) => r.sutCpuPct)),
            floorAuxCpuPct: median((f ?? []).map((r) => r.auxCpuPct)),
            jsonFloorSutCpuPct: median((jf ?? []).map((r) => r.sutCpuPct)),
            jsonFloorAuxCpuPct: median((jf ?? []).map((r) => r.auxCpuPct)),
            gatewaySutCpuPct: median((g ?? []).map((r) => r.sutCpuPct)),
            gatewayAuxCpuPct: median((g ?? []).map((r) => r.auxCpuPct)),
            foreignCpuPct: median([...(d ?? []), ...(f ?? []), ...(jf ?? []), ...(g ?? [])].map((r) => r.foreignCpuPct)),
            directAuxBound: auxBound(d),
            floorAuxBound: auxBound(f),
            jsonFloorAuxBound: auxBound(jf),
            gatewayAuxBound: auxBound(g),
            error: broken ?? null,
          },
        });
      }
    }
  };

  const ran = input.scenarios;
  if (ran.has('sat-json')) saturationRows('saturation, non-streamed (req/s)', raw.satJson, TARGETS.satJson, 'req/s');
  if (ran.has('sat-stream')) saturationRows(`saturation, streams (streams/s)`, raw.satStream, TARGETS.satStream, 'streams/s');

  for (const [which, limit] of ran.has('rate') ? ([['p50', TARGETS.rateP50AddedUs], ['p99', TARGETS.rateP99AddedUs]] as const) : []) {
    for (const lane of lanes) {
      const c = cellsByLane.get(lane.id)!;
      const key = which === 'p50' ? 'p50Us' : 'p99Us';
      const d = raw.rate[c.direct.key];
      const f = raw.rate[c.floor.key];
      const jf = raw.rate[c.jsonFloor.key];
      const g = raw.rate[c.gateway.key];
      const pd = raw.ratePooled[c.direct.key]?.[which] ?? NaN;
      const pf = raw.ratePooled[c.floor.key]?.[which] ?? NaN;
      const pjf = raw.ratePooled[c.jsonFloor.key]?.[which] ?? NaN;
      const pg = raw.ratePooled[c.gateway.key]?.[which] ?? NaN;
      const added = pg - pf;
      const broken = raw.broken[c.gateway.key];
      const pooledWithSpread = (pooled: number, runs: RateRun[] | undefined) =>
        Number.isFinite(pooled) ? `${us(pooled)}${runs && runs.length > 1 ? ` ±${pct(spread(runs.map((r) => r[key])) / 2)}` : ''}` : '—';
      // CPU per request at this moderate rate (timers and idle work included), on the p50 row only.
      const cpuAtRate = (runs: RateRun[] | undefined) => median((runs ?? []).map((r) => (r.samples > 0 ? (r.sutCpuS * 1e6) / r.samples : NaN)));
      const cf = cpuAtRate(f);
      const cjf = cpuAtRate(jf);
      const cg = cpuAtRate(g);
      const showCpu = which === 'p50';
      rows.push({
        ...EMPTY,
        scenario: `latency at fixed rate, ${which}`,
        lane: lane.label,
        direct: pooledWithSpread(pd, d),
        floor: pooledWithSpread(pf, f),
        jsonFloor: pooledWithSpread(pjf, jf),
        gateway: broken ? 'error' : pooledWithSpread(pg, g),
        ratio: Number.isFinite(added) ? signedUs(added) : '—',
        ratioJsonFloor: Number.isFinite(pg - pjf) ? signedUs(pg - pjf) : '—',
        ...(showCpu
          ? { cpuFloor: int(cf), cpuJsonFloor: int(cjf), cpuGateway: int(cg), cpuRatio: Number.isFinite(cg / cf) ? `${(cg / cf).toFixed(2)}×` : '—', cpuRatioJsonFloor: Number.isFinite(cg / cjf) ? `${(cg / cjf).toFixed(2)}×` : '—' }
          : {}),
        target: `≤+${limit.toLocaleString('en-US')} µs vs FLOOR`,
        result: broken ? 'error' : Number.isFinite(added) ? verdict(added <= limit) : 'skipped',
        otherLoad: loadOf(d, f, jf, g),
        values: {
          directUs: pd,
          floorUs: pf,
          jsonFloorUs: pjf,
          gatewayUs: pg,
          addedOverFloorUs: added,
          addedOverJsonFloorUs: pg - pjf,
          addedOverDirectUs: pg - pd,
          addedOverFloorPerRunMedianUs: median(perRun(g, f, (x, y) => x[key] - y[key])),
          floorCpuUsPerRequest: cf,
          jsonFloorCpuUsPerRequest: cjf,
          gatewayCpuUsPerRequest: cg,
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
      const jf = raw.ttfb[c.jsonFloor.key];
      const g = raw.ttfb[c.gateway.key];
      const pd = raw.ttfbPooled[c.direct.key]?.[which].p50 ?? NaN;
      const pf = raw.ttfbPooled[c.floor.key]?.[which].p50 ?? NaN;
      const pjf = raw.ttfbPooled[c.jsonFloor.key]?.[which].p50 ?? NaN;
      const pg = raw.ttfbPooled[c.gateway.key]?.[which].p50 ?? NaN;
      const perRunKey = which === 'ttfb' ? 'ttfbP50Us' : 'totalP50Us';
      const broken = raw.broken[c.gateway.key];
      const added = pg - pf;
      const show = (pooled: number, runs: TtfbRun[] | undefined) =>
        Number.isFinite(pooled) ? `${us(pooled)}${runs && runs.length > 1 ? ` ±${pct(spread(runs.map((r) => r[perRunKey])) / 2)}` : ''}` : '—';
      rows.push({
        ...EMPTY,
        scenario: which === 'ttfb' ? 'stream time to first byte, p50' : 'stream total time, p50',
        lane: lane.label,
        direct: show(pd, d),
        floor: show(pf, f),
        jsonFloor: show(pjf, jf),
        gateway: broken ? 'error' : show(pg, g),
        ratio: Number.isFinite(added) ? signedUs(added) : '—',
        ratioJsonFloor: Number.isFinite(pg - pjf) ? signedUs(pg - pjf) : '—',
        target: which === 'ttfb' ? `≤+${TARGETS.ttfbAddedUs} µs vs FLOOR` : '(report)',
        result: broken ? 'error' : which === 'total' ? 'info' : Number.isFinite(added) ? verdict(added <= TARGETS.ttfbAddedUs) : 'skipped',
        otherLoad: loadOf(d, f, jf, g),
        values: {
          directUs: pd,
          floorUs: pf,
          jsonFloorUs: pjf,
          gatewayUs: pg,
          addedOverFloorUs: added,
          addedOverJsonFloorUs: pg - pjf,
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
    const jf = raw.paced[c.jsonFloor.key];
    const g = raw.paced[c.gateway.key];
    if (!d && !f && !jf && !g) continue;
    const show = (r: PacedRun | undefined) =>
      r ? `${r.minHeld} held, max +${ms(r.excessGap.max)}${r.failures ? `, ${r.failures} failed` : ''}` : '—';
    const broken = raw.broken[c.gateway.key];
    const n = input.pacedConcurrency;
    const clean = (r: PacedRun) => r.failures === 0 && r.minHeld >= n && r.excessGap.over100ms === 0;
    const ok = g ? clean(g) : null;
    // FLOOR carries the same load on the same apparatus: if even FLOOR shows such gaps, the load
    // generator and fake upstream (sharing the aux CPU) are the limit, and the row proves nothing.
    const apparatusLimited = ok === false && f !== undefined && !clean(f);
    // CPU per completed stream over the paced phase.
    const cpuPerStream = (r: PacedRun | undefined) => (r && r.completed > 0 ? (r.sutCpuS * 1e6) / r.completed : NaN);
    rows.push({
      ...EMPTY,
      scenario: `${n} concurrent paced streams`,
      lane: lane.label,
      direct: show(d),
      floor: show(f),
      jsonFloor: show(jf),
      gateway: broken ? 'error' : show(g),
      ratio: g ? `gap p99 +${ms(g.excessGap.p99)}` : '—',
      cpuFloor: int(cpuPerStream(f)),
      cpuJsonFloor: int(cpuPerStream(jf)),
      cpuGateway: int(cpuPerStream(g)),
      cpuRatio: Number.isFinite(cpuPerStream(g) / cpuPerStream(f)) ? `${(cpuPerStream(g) / cpuPerStream(f)).toFixed(2)}×` : '—',
      cpuRatioJsonFloor: Number.isFinite(cpuPerStream(g) / cpuPerStream(jf)) ? `${(cpuPerStream(g) / cpuPerStream(jf)).toFixed(2)}×` : '—',
      target: '≥1,000, no gap >+100 ms',
      result: broken ? 'error' : ok === null ? 'skipped' : n < 1000 ? 'info' : apparatusLimited ? 'inconclusive' : verdict(ok),
      otherLoad: loadOf(d, f, jf, g),
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
        gatewayCpuUsPerStream: cpuPerStream(g),
        floorCpuUsPerStream: cpuPerStream(f),
        jsonFloorCpuUsPerStream: cpuPerStream(jf),
        floorMaxExcessMs: f?.excessGap.max ?? null,
        floorGapsOver100ms: f?.excessGap.over100ms ?? null,
        jsonFloorMaxExcessMs: jf?.excessGap.max ?? null,
        jsonFloorGapsOver100ms: jf?.excessGap.over100ms ?? null,
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
      const cpuOn = median(on.map((r) => r.cpuUsPerRequest));
      const cpuOff = median(off.map((r) => r.cpuUsPerRequest));
      rows.push({
        ...EMPTY,
        scenario: `metrics on vs off, saturation ${label}`,
        lane: lane.label,
        gateway: `on ${int(median(on.map((r) => r.rps)))} / off ${int(median(off.map((r) => r.rps)))}`,
        ratio: costs.length ? `cost ${(cost * 100).toFixed(1)}%` : '—',
        cpuGateway: `on ${int(cpuOn)} / off ${int(cpuOff)}`,
        target: '≤5% throughput',
        result: costs.length ? verdict(cost <= 0.05) : 'skipped',
        otherLoad: loadOf(on, off),
        values: { onRps: median(on.map((r) => r.rps)), offRps: median(off.map((r) => r.rps)), cost, costSpread: spread(costs), cpuOnUsPerRequest: cpuOn, cpuOffUsPerRequest: cpuOff },
      });
    }
  }

  if (input.gatewayMeasured) {
    const breakdown = (p: MemoryProbeSample | null | undefined) =>
      p
        ? `heap ${p.heapUsedMiB.toFixed(0)}/${p.heapTotalMiB.toFixed(0)} MiB, external ${p.externalMiB.toFixed(0)} (buffers ${p.arrayBuffersMiB.toFixed(0)}), ${p.poolSockets} pool sockets (max ${p.maxPoolSockets}), ${p.otherTcpHandles} other TCP (max ${p.maxOtherTcpHandles})`
        : '';
    const peakRow = (scenario: string, peak: MemoryPeak | undefined, target: number | null) => {
      if (!peak) return;
      rows.push({
        ...EMPTY,
        scenario,
        lane: 'all',
        // DIRECT and the floors run under the tsx loader (an extra thread and isolate): their RSS is not comparable.
        gateway: Number.isFinite(peak.peakRssMiB) ? `${peak.peakRssMiB.toFixed(1)} MiB` : '—',
        ratio: breakdown(peak.probe),
        target: target === null ? '(report)' : `≤${target} MiB`,
        result: target === null ? 'info' : Number.isFinite(peak.peakRssMiB) ? verdict(peak.peakRssMiB <= target) : 'skipped',
        otherLoad: '',
        values: { peakRssMiB: peak.peakRssMiB, wholeRun: peak.wholeRun ?? false, ...(peak.probe ?? {}) },
      });
    };
    peakRow('peak RSS at saturation (VmHWM)', raw.memoryPeaks.saturation, null);
    const n = input.pacedConcurrency;
    // One-second streams relaunched as they end (≈ n new streams a second) after the saturation phases: the
    // heap V8 keeps for that churn and what saturation left resident. The issue's 200 MiB for 1,000 streams
    // is for streams held open: the open-streams scenario's 1,000-stream row judges it.
    peakRow(`peak RSS, ${n} paced 1-s streams relaunched, after saturation (VmHWM${raw.memoryPeaks.paced?.wholeRun ? ', whole run' : ''})`, raw.memoryPeaks.paced, null);
  }
  return rows;
}

export function formatTable(rows: Row[]): string {
  const header = ['scenario', 'lane', 'DIRECT', 'FLOOR', 'JSON-FLOOR', 'gateway', 'vs FLOOR', 'vs JSON-FLOOR', 'CPU µs FLOOR', 'CPU µs JSON-FLOOR', 'CPU µs gateway', 'CPU vs FLOOR', 'CPU vs JSON-FLOOR', 'target', 'result', 'other load'];
  const cells = rows.map((r) => [
    r.scenario,
    r.lane,
    r.direct,
    r.floor,
    r.jsonFloor,
    r.gateway,
    r.ratio,
    r.ratioJsonFloor,
    r.cpuFloor,
    r.cpuJsonFloor,
    r.cpuGateway,
    r.cpuRatio,
    r.cpuRatioJsonFloor,
    r.target,
    r.result.toUpperCase(),
    r.otherLoad,
  ]);
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
