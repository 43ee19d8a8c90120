// What one process contributes to the status page: its windows as raw, additive counts (histograms,
// not percentiles), so the --workers primary can merge every worker's part exactly, as it merges
// /metrics. Plain JSON: it crosses the cluster IPC channel.
import { GENERATION_DOORS } from '../codecs/doors.js';
import type { RecentRequestJson } from './recent-requests.js';

/** The windows every rate and percentile is given over, in seconds. */
export const WINDOWS_S = [60, 300, 900] as const;
export const WINDOW_NAMES = ['1m', '5m', '15m'] as const;
/** Doors shown in live traffic (the RequestRecord front doors: the generation doors, then the rest). */
export const DOORS = [...GENERATION_DOORS, 'count_tokens', 'input_tokens', 'countTokens', 'models'] as const;
/** Sparkline: 90 points of 10 s = the last 15 minutes. */
export const SERIES_POINTS = 90;
export const SERIES_STEP_S = 10;

export interface DeploymentPart {
  id: string;
  provider: string;
  model: string;
  circuit: 'closed' | 'open' | 'half-open';
  inFlight: number;
  /** Per window: [attempts, failed attempts, 429s]. */
  counts: number[][];
  /** Per window: duration histogram (successful requests), then TTFT histogram (streams). */
  duration: number[][];
  ttft: number[][];
  /** A provider's row for its wildcard deployments not tracked on their own (model `(other)`). */
  aggregate?: true;
}

export interface DoorPart {
  door: string;
  inFlight: number;
  openStreams: number;
  /** Per window: [requests, failed requests]. */
  counts: number[][];
  /** Requests per SERIES_STEP_S, oldest first (SERIES_POINTS points). */
  series: number[];
}

export interface ReloadRecord {
  at: string;
  ok: boolean;
  why: string;
  error: string | null;
}

export interface StatusPart {
  pid: number;
  startedAt: number;
  configSource: string;
  configHash: string;
  configLoadedAt: string;
  lastReload: ReloadRecord | null;
  draining: boolean;
  doors: DoorPart[];
  deployments: DeploymentPart[];
  recent: RecentRequestJson[];
  /** Attempts counted in a provider's `(other)` row instead of their deployment's own. */
  untrackedDeployments: number;
}

const addInto = (into: number[][], from: number[][]) => {
  for (let w = 0; w < into.length; w++) for (let i = 0; i < into[w]!.length; i++) into[w]![i]! += from[w]?.[i] ?? 0;
};

const CIRCUIT_RANK = { closed: 0, 'half-open': 1, open: 2 } as const;

/** Several processes' parts as one (sums; the most open circuit; the newest reload; the newest requests). */
export function mergeParts(parts: StatusPart[]): StatusPart {
  if (parts.length === 1) return parts[0]!;
  const first = structuredClone(parts[0]!);
  const doors = new Map(first.doors.map((d) => [d.door, d]));
  const deployments = new Map(first.deployments.map((d) => [d.id, d]));
  for (const p of parts.slice(1)) {
    first.startedAt = Math.min(first.startedAt, p.startedAt);
    first.draining ||= p.draining;
    first.untrackedDeployments += p.untrackedDeployments;
    if (p.lastReload && (!first.lastReload || p.lastReload.at > first.lastReload.at)) first.lastReload = p.lastReload;
    for (const d of p.doors) {
      const mine = doors.get(d.door);
      if (!mine) {
        const copy = structuredClone(d);
        doors.set(d.door, copy);
        first.doors.push(copy);
        continue;
      }
      mine.inFlight += d.inFlight;
      mine.openStreams += d.openStreams;
      addInto(mine.counts, d.counts);
      for (let i = 0; i < mine.series.length; i++) mine.series[i]! += d.series[i] ?? 0;
    }
    for (const d of p.deployments) {
      const mine = deployments.get(d.id);
      if (!mine) {
        const copy = structuredClone(d);
        deployments.set(d.id, copy);
        first.deployments.push(copy);
        continue;
      }
      mine.inFlight += d.inFlight;
      if (CIRCUIT_RANK[d.circuit] > CIRCUIT_RANK[mine.circuit]) mine.circuit = d.circuit;
      addInto(mine.counts, d.counts);
      addInto(mine.duration, d.duration);
      addInto(mine.ttft, d.ttft);
    }
    first.recent.push(...p.recent);
  }
  first.recent.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
  first.recent.length = Math.min(first.recent.length, 100);
  return first;
}
