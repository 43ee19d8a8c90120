// The status page's in-process windows, fed by the observer's request tap (observability/request-tap.ts):
// per deployment and per front door, fixed rings of per-second counts (15 minutes) and per-5-second
// latency histograms, the doors' in-flight and open-stream counts, and the last 100 requests. One
// request costs a few array writes; nothing here allocates per request once a deployment is known.
import type { CircuitState } from '../router/deployment-health.js';
import type { RequestRecord } from '../observability/request-record.js';
import type { RequestTap } from '../observability/request-tap.js';
import { bucketOf, HISTOGRAM_BUCKETS } from './latency-histogram.js';
import { RecentRequests } from './recent-requests.js';
import { SlotRing } from './slot-ring.js';
import { DOORS, SERIES_POINTS, SERIES_STEP_S, WINDOWS_S, type DeploymentPart, type DoorPart } from './status-part.js';

/** Deployments tracked at most (wildcard routes make upstream model names caller-chosen). */
export const MAX_TRACKED_DEPLOYMENTS = 200;
const COUNT_SLOTS = 900;
const LATENCY_SLOT_MS = 5_000;
const LATENCY_SLOTS = 180;

// Deployment count columns.
const ATTEMPTS = 0;
const FAILED = 1;
const RATE_LIMITED = 2;

class DeploymentWindows {
  readonly counts = new SlotRing(1000, COUNT_SLOTS, 3);
  /** Duration histogram, then TTFT histogram, per 5-second slot. */
  readonly latency = new SlotRing(LATENCY_SLOT_MS, LATENCY_SLOTS, 2 * HISTOGRAM_BUCKETS);
  constructor(
    readonly id: string,
    readonly provider: string,
    readonly model: string,
  ) {}
}

class DoorWindows {
  inFlight = 0;
  openStreams = 0;
  /** [requests, failed] per second. */
  readonly counts = new SlotRing(1000, COUNT_SLOTS, 2);
}

function doorIndex(door: string): number {
  switch (door) {
    case 'messages':
      return 0;
    case 'responses':
      return 1;
    case 'count_tokens':
      return 2;
    case 'input_tokens':
      return 3;
    default:
      return 4;
  }
}

export class StatusCollector implements RequestTap {
  private readonly doors = DOORS.map(() => new DoorWindows());
  private readonly byId = new Map<string, DeploymentWindows>();
  /** provider → upstream model → windows: the finished record names both, and a two-level lookup needs no key string. */
  private readonly byPair = new Map<string, Map<string, DeploymentWindows>>();
  readonly recent = new RecentRequests();
  untracked = 0;

  constructor(private readonly now: () => number = Date.now) {}

  requestStarted(rec: RequestRecord): void {
    this.doors[doorIndex(rec.frontDoor)]!.inFlight++;
  }

  streamOpened(rec: RequestRecord): void {
    this.doors[doorIndex(rec.frontDoor)]!.openStreams++;
  }

  requestFinished(rec: RequestRecord, totalMs: number, ttftMs: number): void {
    const now = this.now();
    const door = this.doors[doorIndex(rec.frontDoor)]!;
    if (door.inFlight > 0) door.inFlight--;
    if (rec.tStreamOpened !== 0 && door.openStreams > 0) door.openStreams--;
    const row = door.counts.rowAt(now);
    door.counts.data[row]++;
    if (rec.errorKind !== undefined) door.counts.data[row + 1]++;
    if (rec.errorKind === undefined && rec.provider !== 'none') {
      const d = this.pair(rec.provider, rec.upstreamModel);
      if (d !== undefined) {
        const base = d.latency.rowAt(now);
        d.latency.data[base + bucketOf(totalMs)]++;
        if (ttftMs >= 0) d.latency.data[base + HISTOGRAM_BUCKETS + bucketOf(ttftMs)]++;
      }
    }
    this.recent.record(rec, now, totalMs, ttftMs);
  }

  attemptEnded(deployment: string, outcome: string): void {
    let d = this.byId.get(deployment);
    if (d === undefined) {
      const slash = deployment.indexOf('/');
      d = this.track(deployment.slice(0, slash), deployment.slice(slash + 1));
      if (d === undefined) return;
    }
    const row = d.counts.rowAt(this.now());
    d.counts.data[row + ATTEMPTS]++;
    if (outcome !== 'success') d.counts.data[row + FAILED]++;
    if (outcome === 'rate_limit') d.counts.data[row + RATE_LIMITED]++;
  }

  private pair(provider: string, model: string): DeploymentWindows | undefined {
    return this.byPair.get(provider)?.get(model) ?? this.track(provider, model);
  }

  private track(provider: string, model: string): DeploymentWindows | undefined {
    const id = provider + '/' + model;
    const known = this.byId.get(id);
    if (known !== undefined) return known;
    if (this.byId.size >= MAX_TRACKED_DEPLOYMENTS) {
      this.untracked++;
      return undefined;
    }
    const d = new DeploymentWindows(id, provider, model);
    this.byId.set(id, d);
    let models = this.byPair.get(provider);
    if (models === undefined) this.byPair.set(provider, (models = new Map()));
    models.set(model, d);
    return d;
  }

  // --- read when the page asks -------------------------------------------------------------------

  doorParts(): DoorPart[] {
    const now = this.now();
    return this.doors.map((d, i) => ({
      door: DOORS[i]!,
      inFlight: d.inFlight,
      openStreams: d.openStreams,
      counts: WINDOWS_S.map((s) => {
        const out = [0, 0];
        d.counts.sumInto(now, s, out);
        return out;
      }),
      series: d.counts.series(now, 0, SERIES_POINTS, SERIES_STEP_S),
    }));
  }

  /**
   * Every configured deployment (`configured`: "<provider>/<model>") and every one seen, with its
   * circuit state and in-flight count from the router's health.
   */
  deploymentParts(configured: Iterable<string>, health: { state(id: string): CircuitState; inFlight(id: string): number }): DeploymentPart[] {
    const now = this.now();
    const ids = new Set<string>(configured);
    for (const id of this.byId.keys()) ids.add(id);
    const out: DeploymentPart[] = [];
    for (const id of ids) {
      const d = this.byId.get(id);
      const slash = id.indexOf('/');
      const counts: number[][] = [];
      const duration: number[][] = [];
      const ttft: number[][] = [];
      for (const s of WINDOWS_S) {
        const c = [0, 0, 0];
        const h = new Array<number>(2 * HISTOGRAM_BUCKETS).fill(0);
        if (d) {
          d.counts.sumInto(now, s, c);
          d.latency.sumInto(now, Math.ceil((s * 1000) / LATENCY_SLOT_MS), h);
        }
        counts.push(c);
        duration.push(h.slice(0, HISTOGRAM_BUCKETS));
        ttft.push(h.slice(HISTOGRAM_BUCKETS));
      }
      out.push({
        id,
        provider: slash < 0 ? id : id.slice(0, slash),
        model: slash < 0 ? '' : id.slice(slash + 1),
        circuit: health.state(id),
        inFlight: health.inFlight(id),
        counts,
        duration,
        ttft,
      });
    }
    return out;
  }
}
