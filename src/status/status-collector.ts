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

/** Deployments of wildcard routes (upstream model names the caller chose) tracked one by one at most;
 * configured deployments are always tracked, outside this bound. */
export const MAX_WILDCARD_DEPLOYMENTS = 100;
/** The model of a provider's aggregate row: every wildcard deployment not tracked on its own. */
export const OTHER_MODEL = '(other)';
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

/** The door's row; anything unknown counts with the last (`models`). */
function doorIndex(door: string): number {
  const i = (DOORS as readonly string[]).indexOf(door);
  return i < 0 ? DOORS.length - 1 : i;
}

export class StatusCollector implements RequestTap {
  private readonly doors = DOORS.map(() => new DoorWindows());
  private readonly byId = new Map<string, DeploymentWindows>();
  /** provider → upstream model → windows: the finished record names both, and a two-level lookup needs no key string. */
  private readonly byPair = new Map<string, Map<string, DeploymentWindows>>();
  /** provider → the aggregate row of its untracked wildcard deployments (bounded by the providers). */
  private readonly other = new Map<string, DeploymentWindows>();
  private wildcards = 0;
  readonly recent = new RecentRequests();
  /** Attempts counted in an aggregate row rather than their own. */
  untracked = 0;

  /** `isConfigured(id)`: a deployment of the running config ("<provider>/<model>"), asked only the first
   * time an id is seen. A caller cannot push those out: wildcard names get their own row only after an
   * attempt succeeded (a 404 for a made-up name never does), at most MAX_WILDCARD_DEPLOYMENTS of them. */
  constructor(
    private readonly now: () => number = Date.now,
    private readonly isConfigured: (id: string) => boolean = () => false,
  ) {}

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
      d = this.track(deployment.slice(0, slash), deployment.slice(slash + 1), outcome === 'success');
    }
    const row = d.counts.rowAt(this.now());
    d.counts.data[row + ATTEMPTS]++;
    if (outcome !== 'success') d.counts.data[row + FAILED]++;
    if (outcome === 'rate_limit') d.counts.data[row + RATE_LIMITED]++;
  }

  private pair(provider: string, model: string): DeploymentWindows {
    // A successful request: its attempt was tracked already, or folded into the aggregate.
    return this.byPair.get(provider)?.get(model) ?? this.track(provider, model, false);
  }

  /** The deployment's own windows, or its provider's aggregate row. */
  private track(provider: string, model: string, succeeded: boolean): DeploymentWindows {
    const id = provider + '/' + model;
    const known = this.byId.get(id);
    if (known !== undefined) return known;
    const configured = this.isConfigured(id);
    if (!configured && (!succeeded || this.wildcards >= MAX_WILDCARD_DEPLOYMENTS || model === OTHER_MODEL)) {
      this.untracked++;
      return this.otherOf(provider);
    }
    if (!configured) this.wildcards++;
    const d = new DeploymentWindows(id, provider, model);
    this.byId.set(id, d);
    let models = this.byPair.get(provider);
    if (models === undefined) this.byPair.set(provider, (models = new Map()));
    models.set(model, d);
    return d;
  }

  private otherOf(provider: string): DeploymentWindows {
    let d = this.other.get(provider);
    if (d === undefined) this.other.set(provider, (d = new DeploymentWindows(provider + '/' + OTHER_MODEL, provider, OTHER_MODEL)));
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
    const rows: [string, DeploymentWindows | undefined, boolean][] = [...ids].map((id) => [id, this.byId.get(id), false]);
    for (const d of this.other.values()) rows.push([d.id, d, true]);
    for (const [id, d, aggregate] of rows) {
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
        circuit: aggregate ? 'closed' : health.state(id),
        inFlight: aggregate ? 0 : health.inFlight(id),
        counts,
        duration,
        ttft,
        ...(aggregate ? { aggregate: true } : {}),
      });
    }
    return out;
  }
}
