// status.json from the merged windows and the configuration: rates and percentiles computed here, once
// per page poll, from the raw counts (status-part.ts). The shape is documented in docs/status.md.
import { GENERATION_DOORS, type GenerationDoor } from '../codecs/doors.js';
import type { GatewayConfig } from '../config/types.js';
import { quantile } from './latency-histogram.js';
import { round1, type RecentRequestJson } from './recent-requests.js';
import { WINDOW_NAMES, WINDOWS_S, SERIES_STEP_S, type StatusPart } from './status-part.js';

export const STATUS_SCHEMA = 1;

export interface DeploymentWindowJson {
  requests: number;
  rps: number;
  errors: number;
  error_rate: number;
  rate_limited: number;
  rate_limited_rate: number;
  p50_ms: number | null;
  p95_ms: number | null;
  ttft_p50_ms: number | null;
  ttft_p95_ms: number | null;
}

export type Lane = 'passthrough' | 'translation' | 'local';

export interface RouteJson {
  alias: string;
  wildcard: boolean;
  strategy: string;
  targets: { provider: string; protocol: string; model: string | null; weight: number; deployment: string | null; lanes: Record<GenerationDoor, Lane> }[];
}

const rate = (n: number, d: number) => (d === 0 ? 0 : Math.round((n / d) * 10_000) / 10_000);
const perSecond = (n: number, s: number) => Math.round((n / s) * 1000) / 1000;
const ms = (v: number | null) => (v === null ? null : round1(v));

function laneFor(protocol: string, door: GenerationDoor): Lane {
  if (protocol === 'demo') return 'local';
  return protocol === door ? 'passthrough' : 'translation';
}

export function routesJson(config: GatewayConfig): RouteJson[] {
  return config.models.map((m) => ({
    alias: m.name,
    wildcard: m.pattern !== undefined,
    strategy: m.strategy,
    targets: m.targets.map((t) => {
      const protocol = config.providers.get(t.provider)?.protocol ?? 'unknown';
      return {
        provider: t.provider,
        protocol,
        model: t.model ?? null,
        weight: t.weight,
        deployment: t.model === undefined ? null : t.provider + '/' + t.model,
        lanes: Object.fromEntries(GENERATION_DOORS.map((door) => [door, laneFor(protocol, door)])) as Record<GenerationDoor, Lane>,
      };
    }),
  }));
}

/** "<provider>/<upstream model>" of every target with a fixed upstream model. */
export function configuredDeployments(config: GatewayConfig): string[] {
  const out = new Set<string>();
  for (const m of config.models) for (const t of m.targets) if (t.model !== undefined) out.add(t.provider + '/' + t.model);
  return [...out];
}

export function deploymentsJson(part: StatusPart, config: GatewayConfig) {
  return part.deployments.map((d) => {
    const windows: Record<string, DeploymentWindowJson> = {};
    WINDOW_NAMES.forEach((name, w) => {
      const [requests = 0, errors = 0, limited = 0] = d.counts[w] ?? [];
      windows[name] = {
        requests,
        rps: perSecond(requests, WINDOWS_S[w]!),
        errors,
        error_rate: rate(errors, requests),
        rate_limited: limited,
        rate_limited_rate: rate(limited, requests),
        p50_ms: ms(quantile(d.duration[w]!, 0.5)),
        p95_ms: ms(quantile(d.duration[w]!, 0.95)),
        ttft_p50_ms: ms(quantile(d.ttft[w]!, 0.5)),
        ttft_p95_ms: ms(quantile(d.ttft[w]!, 0.95)),
      };
    });
    return {
      deployment: d.id,
      provider: d.provider,
      model: d.model,
      protocol: config.providers.get(d.provider)?.protocol ?? null,
      circuit: d.circuit,
      in_flight: d.inFlight,
      windows,
      ...(d.aggregate ? { other: true } : {}),
    };
  });
}

export function trafficJson(part: StatusPart) {
  let inFlight = 0;
  let openStreams = 0;
  const doors = part.doors.map((d) => {
    inFlight += d.inFlight;
    openStreams += d.openStreams;
    const windows: Record<string, { requests: number; rps: number; errors: number; error_rate: number }> = {};
    WINDOW_NAMES.forEach((name, w) => {
      const [requests = 0, errors = 0] = d.counts[w] ?? [];
      windows[name] = { requests, rps: perSecond(requests, WINDOWS_S[w]!), errors, error_rate: rate(errors, requests) };
    });
    return { door: d.door, in_flight: d.inFlight, open_streams: d.openStreams, windows, series: d.series };
  });
  return { in_flight: inFlight, open_streams: openStreams, series_step_s: SERIES_STEP_S, doors };
}

export type RecentJson = RecentRequestJson[];
