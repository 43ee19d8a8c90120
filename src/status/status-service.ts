// The status page's data: this process's windows (StatusCollector) and what it knows of itself (start,
// config, last reload, draining), merged with the other workers' under --workers, plus what is read
// only when the page asks: the state store's health and the keys' and teams' usage against their
// limits and budgets (bounded, and cached for a second so many open pages cost one read).
import type { AdminView } from '../access/access-service.js';
import type { GatewayConfig } from '../config/types.js';
import type { CircuitState } from '../router/deployment-health.js';
import type { StateStore } from '../state/types.js';
import { configDigest } from './config-digest.js';
import type { InstanceRegistry } from '../state/instance-registry.js';
import { packageVersion } from './package-root.js';
import { StatusCollector } from './status-collector.js';
import { mergeParts, type ReloadRecord, type StatusPart } from './status-part.js';
import { configuredDeployments, deploymentsJson, routesJson, STATUS_SCHEMA, trafficJson } from './status-view.js';

/** Keys and teams listed at most (the rest counted in `truncated`). */
export const MAX_ACCESS_ROWS = 200;
const ACCESS_CACHE_MS = 1_000;
const PING_TIMEOUT_MS = 1_000;

export interface StatusSources {
  config: () => GatewayConfig;
  health: { state(id: string): CircuitState; inFlight(id: string): number };
  stateStore: StateStore;
  access: { adminView(): Promise<AdminView> };
  /** The draining flag (AppContext.draining). */
  draining: () => boolean;
  /** Masks configured secrets out of error text shown on the page. */
  redact: (text: string) => string;
}

interface Probe {
  at: number;
  value: Promise<{ state: { reachable: boolean; error: string | null }; access: AccessJson }>;
}

export interface AccessJson {
  scope: 'cluster' | 'local';
  backend: string;
  error: string | null;
  keys: AdminView['keys'];
  teams: AdminView['teams'];
  truncated: number;
}

export class StatusService {
  readonly collector: StatusCollector;
  private readonly startedAt: number;
  private configLoadedAt: number;
  private lastReload: ReloadRecord | null = null;
  private probe: Probe | undefined;
  /** Set in --workers mode: every worker's part (this one's included). */
  clusterParts: (() => Promise<StatusPart[]>) | undefined;
  /** Set on Redis: the instances heard from. */
  instances: InstanceRegistry | undefined;
  workers = 1;
  primaryPid = process.pid;

  constructor(
    private readonly sources: StatusSources,
    private readonly now: () => number = Date.now,
  ) {
    // Configured deployments always get their own windows (asked once per new id, against the running config).
    let known: { config: GatewayConfig; ids: ReadonlySet<string> } | undefined;
    this.collector = new StatusCollector(now, (id) => {
      const config = sources.config();
      if (known?.config !== config) known = { config, ids: new Set(configuredDeployments(config)) };
      return known.ids.has(id);
    });
    this.startedAt = now();
    this.configLoadedAt = this.startedAt;
  }

  /** A configuration reload ended (config/reload.ts's outcome hook). */
  reloaded(outcome: { ok: boolean; why: string; error?: string }): void {
    const at = this.now();
    this.lastReload = { at: new Date(at).toISOString(), ok: outcome.ok, why: outcome.why, error: outcome.error ?? null };
    if (outcome.ok) this.configLoadedAt = at;
  }

  /** This process's contribution (answered to the primary under --workers). */
  part(): StatusPart {
    const config = this.sources.config();
    return {
      pid: process.pid,
      startedAt: this.startedAt,
      configSource: config.source,
      configHash: configDigest(config),
      configLoadedAt: new Date(this.configLoadedAt).toISOString(),
      lastReload: this.lastReload,
      draining: this.sources.draining(),
      doors: this.collector.doorParts(),
      deployments: this.collector.deploymentParts(configuredDeployments(config), this.sources.health),
      recent: this.collector.recent.toJson(),
      untrackedDeployments: this.collector.untracked,
    };
  }

  /** status.json. */
  async snapshot(): Promise<Record<string, unknown>> {
    const config = this.sources.config();
    const [parts, probed] = await Promise.all([this.clusterParts ? this.clusterParts().catch(() => [this.part()]) : Promise.resolve([this.part()]), this.probed(config)]);
    const part = mergeParts(parts);
    const now = this.now();
    const instances: InstanceSeen[] | null = this.instances ? instancesJson(this.instances, now) : null;
    return {
      schema: STATUS_SCHEMA,
      generated_at: new Date(now).toISOString(),
      instance: {
        version: packageVersion(),
        node: process.version,
        pid: this.primaryPid,
        started_at: new Date(part.startedAt).toISOString(),
        uptime_s: Math.round((now - part.startedAt) / 1000),
        config: { source: part.configSource, sha256: part.configHash, loaded_at: part.configLoadedAt, workers_agree: parts.every((p) => p.configHash === part.configHash) },
        last_reload: part.lastReload,
        state: { backend: config.state.backend, ...probed.state },
        workers: this.workers,
        workers_answering: parts.length,
        instances,
        draining: part.draining,
      },
      routes: routesJson(config),
      deployments: deploymentsJson(part, config),
      untracked_deployments: part.untrackedDeployments,
      traffic: trafficJson(part),
      access: probed.access,
      recent: part.recent,
    };
  }

  /** State store health and usage, read at most once a second whatever the number of open pages. */
  private probed(config: GatewayConfig): Probe['value'] {
    const now = this.now();
    if (this.probe && now - this.probe.at < ACCESS_CACHE_MS) return this.probe.value;
    const store = this.sources.stateStore;
    const value = (async () => {
      let reachable = true;
      let error: string | null = null;
      try {
        await withTimeout(store.ping(), PING_TIMEOUT_MS);
      } catch (err) {
        reachable = false;
        error = this.sources.redact((err as Error).message);
      }
      const access: AccessJson = { scope: store.backend === 'redis' ? 'cluster' : 'local', backend: store.backend, error: null, keys: [], teams: [], truncated: 0 };
      if (config.authKeys.length > 0 || config.auth.teams.size > 0) {
        try {
          const view = await withTimeout(this.sources.access.adminView(), PING_TIMEOUT_MS * 2);
          access.keys = view.keys.slice(0, MAX_ACCESS_ROWS);
          access.teams = view.teams.slice(0, MAX_ACCESS_ROWS);
          access.truncated = Math.max(0, view.keys.length - MAX_ACCESS_ROWS) + Math.max(0, view.teams.length - MAX_ACCESS_ROWS);
        } catch (err) {
          access.error = this.sources.redact((err as Error).message);
        }
      }
      return { state: { reachable, error }, access };
    })();
    this.probe = { at: now, value };
    return value;
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(t);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

/** One instance on the shared store, as status.json lists it. */
export interface InstanceSeen {
  id: string;
  host: string;
  pid: number;
  version: string;
  last_seen: string;
}

function instancesJson(registry: InstanceRegistry, now: number): InstanceSeen[] {
  return registry.listSeen(now).map(({ info, seen }) => ({
    id: info.id,
    host: info.host,
    pid: info.pid,
    version: info.version,
    last_seen: new Date(seen).toISOString(),
  }));
}
