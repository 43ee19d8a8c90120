// The observability tap: the routes fill a RequestRecord as a request flows and call these methods at
// a few fixed points; metrics and the single per-request log line are derived from the record here.
// With metrics disabled every method is a no-op except the log line.
import { GENERATION_DOORS, type GenerationDoor } from '../codecs/doors.js';
import type { Logger } from 'pino';
import type { GaugeSink } from './fast-metrics.js';
import { attemptOutcomeLabel, BoundedLabel, WarningFieldLabel } from './label-limits.js';
import { safeErrorObject, secretMasker } from './logger.js';
import { CIRCUIT_STATE_VALUE, createMetrics, type CircuitStateName, type GatewayMetrics, type HistogramSink } from './metrics.js';
import { AuthFailureLog, AUTH_FAILURE_REASONS, type AuthFailure } from './auth-failure-log.js';
import { loggedReason } from './operator-reason.js';
import { RequestLineWriter, requestLineFields, type RequestDurations } from './request-line.js';
import { KeySeries, RequestSeries } from './request-series.js';
import type { AttemptEntry, RequestRecord } from './request-record.js';
import type { RequestTap } from './request-tap.js';

export interface ObservabilityOptions {
  metricsEnabled: boolean;
  logger: Logger;
  /** Configured model aliases/patterns (ModelConfig.name): the only model label values besides "other". */
  modelLabels?: Iterable<string>;
  /** Configured provider names: the only provider label values besides "none"/"other". */
  providerLabels?: Iterable<string>;
  /** Secret values masked out of logged text (gateway keys, provider keys). */
  secrets?: readonly string[];
  /** Node process metrics (CPU, memory, event loop, GC) on the same registry. Default true. */
  processMetrics?: boolean;
}

/** Caps on distinct label values, whatever the config holds. */
export const MAX_MODEL_LABELS = 200;
export const MAX_PROVIDER_LABELS = 100;
export const MAX_UPSTREAM_MODEL_LABELS = 500;
export const MAX_WARNING_FIELDS = 64;
export const MAX_KEY_LABELS = 500;
export const MAX_TEAM_LABELS = 100;

/** Upstream refusals the caller caused (its request, its prompt's size): logged at info, not warn. */
const CALLER_CAUSED = new Set(['invalid_request', 'context_overflow', 'request_too_large', 'not_found']);

/** The ops StateStore backends report (state/options.ts onError), a fixed label set. */
const STATE_OPS = new Set(['get', 'put', 'delete', 'admit', 'inspect', 'charge', 'release', 'read_counters', 'publish', 'subscribe', 'ping']);

export class Observability {
  readonly metricsEnabled: boolean;
  private readonly logger: Logger;
  /** The per-request line, built from our own fields (free text masked), so it cannot hold a header
   * or key: pino's path redaction, which walked every field of every line, is left to the general logger. */
  private readonly requestLine: RequestLineWriter;
  private readonly m: GatewayMetrics | undefined;
  private readonly models = new BoundedLabel(MAX_MODEL_LABELS, ['other']);
  private readonly providers = new BoundedLabel(MAX_PROVIDER_LABELS, ['none', 'other']);
  /** Upstream model names of deployments (circuit state): wildcard routes make these caller-chosen. */
  private readonly deploymentModels = new BoundedLabel(MAX_UPSTREAM_MODEL_LABELS, ['other']);
  private readonly warningFields = new WarningFieldLabel(MAX_WARNING_FIELDS);
  /** Configured key and team names (auth.keys, auth.teams); anything else is "other". */
  private readonly keys = new BoundedLabel(MAX_KEY_LABELS, ['anonymous', 'other']);
  private readonly teams = new BoundedLabel(MAX_TEAM_LABELS, ['none', 'other']);
  /** Key labels allowed before setAccessLabels ran: none (a first-come label would be unbounded). */
  private accessLabelsSet = false;
  /** Circuit-state series already set (seedCircuitStates never overwrites a real state). */
  private readonly seeded = new Set<string>();
  private mask: (text: string) => string;
  /** Bound series per kind of request / per (key, team, model): see request-series.ts. */
  private readonly requestSeries = new Map<string, RequestSeries>();
  private readonly keySeries = new Map<string, KeySeries>();
  private readonly inFlightByDoor = new Map<string, GaugeSink>();
  /** The status page's windows (request-tap.ts), fed with or without metrics. */
  private tap: RequestTap | undefined;
  private readonly authFailures: AuthFailureLog;

  constructor(options: ObservabilityOptions) {
    this.metricsEnabled = options.metricsEnabled;
    this.logger = options.logger;
    this.requestLine = new RequestLineWriter(options.logger);
    this.mask = secretMasker(options.secrets ?? []);
    this.setLabelSets({ models: options.modelLabels, providers: options.providerLabels });
    this.m = options.metricsEnabled ? createMetrics({ processMetrics: options.processMetrics ?? true }) : undefined;
    // Every op shows as 0 from the start: a healthy store has a flat line, not an empty panel.
    if (this.m) for (const op of STATE_OPS) this.m.stateErrors.labels(op).inc(0);
    if (this.m) for (const door of GENERATION_DOORS) this.m.shutdownCut.labels(door).inc(0);
    if (this.m) for (const reason of AUTH_FAILURE_REASONS) this.m.authFailures.labels(reason).inc(0);
    this.authFailures = new AuthFailureLog(options.logger);
    // The one door with a WebSocket transport (Responses): an idle gateway shows 0 sockets, not no data.
    this.m?.openSockets.child('responses');
    this.m?.socketCloses.labels('responses', 'client').inc(0);
    this.m?.instances.set(1);
  }

  // --- configuration (start and reload) ---------------------------------------------------------

  /** Restrict model/provider label values to what the config names (call again on reload). */
  setLabelSets(sets: { models?: Iterable<string> | undefined; providers?: Iterable<string> | undefined }): void {
    this.models.allow(sets.models);
    this.providers.allow(sets.providers);
  }

  /** Model label values = the configured aliases/patterns (ModelConfig.name); others → "other". */
  setModelLabels(names: Iterable<string>): void {
    this.models.allow(names);
  }

  /** Provider label values = the configured provider names; others → "other". */
  setProviderLabels(names: Iterable<string>): void {
    this.providers.allow(names);
  }

  /**
   * Key and team label values = the configured names; the budget gauges = the configured budgets
   * (call again on reload: budgets that left the config leave the gauge).
   */
  setAccess(keys: Iterable<string>, teams: Iterable<string>, budgets: Iterable<{ scope: 'key' | 'team'; owner: string; usd: number }>): void {
    this.keys.allow(keys);
    this.teams.allow(teams);
    this.accessLabelsSet = true;
    if (!this.m) return;
    this.m.budget.reset();
    for (const b of budgets) this.m.budget.labels(b.scope, this.ownerLabel(b.scope, b.owner)).set(b.usd);
  }

  /** A budget's period spend as admission read it from the state store. */
  recordBudgetSpend(scope: 'key' | 'team', owner: string, usd: number): void {
    if (!this.m) return;
    this.m.budgetSpent.labels(scope, this.ownerLabel(scope, owner)).set(usd);
  }

  private ownerLabel(scope: 'key' | 'team', owner: string): string {
    return scope === 'key' ? this.keyLabel(owner) : this.teams.value(owner);
  }

  private keyLabel(name: string): string {
    return this.accessLabelsSet ? this.keys.value(name) : 'other';
  }

  /** Replace the secrets masked out of logged text (call again on reload). */
  setSecrets(secrets: readonly string[]): void {
    this.mask = secretMasker(secrets);
  }

  /** Install (or remove) the second reader of the request lifecycle: the status page's collector. */
  setTap(tap: RequestTap | undefined): void {
    this.tap = tap;
  }

  // --- the request lifecycle --------------------------------------------------------------------

  /** A request arrived (the record is fresh: only frontDoor and tStart are known). */
  requestStarted(rec: RequestRecord): void {
    this.tap?.requestStarted(rec);
    if (!this.m) return;
    this.inFlight(rec.frontDoor).inc();
  }

  /** SSE headers went to the caller; provider and lane are final from here on. Once per request. */
  streamOpened(rec: RequestRecord): void {
    if (rec.tStreamOpened !== 0 || (!this.m && !this.tap)) return;
    rec.tStreamOpened = performance.now();
    this.tap?.streamOpened(rec);
    if (!this.m) return;
    rec.lastEventAt = 0;
    this.m.openStreams.child(rec.frontDoor).inc();
    // Bind the per-event series now, so eventWritten does no label work at all.
    rec.eventGapSink = this.m.eventGap.child(rec.frontDoor, this.providers.value(rec.provider));
  }

  /**
   * One event/frame was written to a streaming caller at `now` (performance.now()). Hot path: one
   * subtraction and a few typed-array writes (~10 ns): no object allocation, no label lookup, no
   * logging. The clock read is the caller's and costs more than this call: frames written together
   * (one upstream chunk's) may share one `now`, their gaps then count as 0, which they nearly are.
   */
  eventWritten(rec: RequestRecord, now: number): void {
    const sink: HistogramSink | undefined = rec.eventGapSink;
    if (sink === undefined) return;
    if (rec.lastEventAt !== 0) sink.observe((now - rec.lastEventAt) / 1000);
    rec.lastEventAt = now;
  }

  /**
   * The request is over (rec.tEnd set; call exactly once, from a finally). Records every stage
   * whose timestamps were reached (0 = not reached: skipped) and writes the one log line.
   */
  requestFinished(rec: RequestRecord): void {
    const end = rec.tEnd !== 0 ? rec.tEnd : performance.now();
    const totalMs = end - rec.tStart;
    const upstreamMs = rec.tUpstreamSent !== 0 && rec.tUpstreamEnd !== 0 ? rec.tUpstreamEnd - rec.tUpstreamSent : -1;
    const overheadMs = upstreamMs >= 0 ? Math.max(0, totalMs - upstreamMs) : -1;
    const ttftMs = rec.stream && rec.tFirstToken !== 0 ? rec.tFirstToken - rec.tStart : -1;
    const spans: RequestDurations = { totalMs, upstreamMs, overheadMs, ttftMs };
    if (this.m) this.recordMetrics(rec, spans);
    this.tap?.requestFinished(rec, totalMs, ttftMs);
    if (this.requestLine.enabled) this.requestLine.write(requestLineFields(rec, spans, this.mask));
  }

  private recordMetrics(rec: RequestRecord, spans: RequestDurations): void {
    const m = this.m!;
    const fd = rec.frontDoor;
    const model = this.models.value(rec.modelLabel);
    const provider = this.providers.value(rec.provider);
    const protocol = rec.upstreamProtocol;

    this.inFlight(fd).dec();
    if (rec.tStreamOpened !== 0) {
      m.openStreams.child(fd).dec();
      if (rec.clientAborted) m.streamsClientAborted.labels(fd).inc();
    }
    const key = fd + '\u0000' + model + '\u0000' + provider + '\u0000' + protocol + '\u0000' + rec.lane + (rec.stream ? '\u0000t' : '\u0000f') + rec.transport;
    let series = this.requestSeries.get(key);
    if (series === undefined) {
      series = new RequestSeries(m, fd, model, provider, protocol, rec.lane, rec.stream ? 'true' : 'false', rec.transport);
      this.requestSeries.set(key, series);
    }
    series.record(rec, spans);

    if (rec.keyName !== '') {
      const keyLabel = this.keyLabel(rec.keyName);
      const team = rec.teamName === '' ? 'none' : this.teams.value(rec.teamName);
      const k = keyLabel + '\u0000' + team + '\u0000' + model;
      let ks = this.keySeries.get(k);
      if (ks === undefined) {
        ks = new KeySeries(m, keyLabel, team, model);
        this.keySeries.set(k, ks);
      }
      ks.record(rec);
    }
    if (rec.retries > 0) m.retries.labels(model).inc(rec.retries);
    if (rec.upstreamAborted) m.upstreamAborts.labels(provider).inc();
    for (const w of rec.warnings) {
      m.translationWarnings.labels(this.warningFields.value(w.field), fd, protocol).inc();
    }
  }

  /** The in-flight gauge of a front door (five of them). */
  private inFlight(fd: string): GaugeSink {
    let g = this.inFlightByDoor.get(fd);
    if (g === undefined) {
      g = this.m!.inFlight.child(fd);
      this.inFlightByDoor.set(fd, g);
    }
    return g;
  }

  // --- events outside the record --------------------------------------------------------------

  /** One upstream attempt ended: outcome is "success" or a GatewayErrorKind; `deployment` feeds the status page. */
  recordAttempt(provider: string, outcome: string, deployment?: string): void {
    if (deployment !== undefined) this.tap?.attemptEnded(deployment, outcome);
    if (!this.m) return;
    this.m.upstreamAttempts.child(this.providers.value(provider), attemptOutcomeLabel(outcome)).inc();
  }

  /**
   * An upstream attempt failed (entry: outcome, status, raw reason, the router's next step): added to the
   * request's story (the final line lists it) and logged now, one line per failed attempt. A failure the
   * caller caused (a bad request the upstream refused) is `info`; every other one `warn`.
   */
  attemptFailed(rec: RequestRecord, entry: AttemptEntry): void {
    (rec.attemptLog ??= []).push(entry);
    const level = CALLER_CAUSED.has(entry.outcome) ? 'info' : 'warn';
    if (!this.logger.isLevelEnabled(level)) return;
    this.logger[level](
      {
        requestId: rec.requestId,
        frontDoor: rec.frontDoor,
        modelLabel: rec.modelLabel,
        deployment: entry.deployment,
        attempt: entry.attempt,
        errorKind: entry.outcome,
        ...(entry.upstreamStatus === undefined ? {} : { upstreamStatus: entry.upstreamStatus }),
        reason: loggedReason(entry.reason ?? '', this.mask),
        next: entry.next,
        why: entry.why,
        ...(entry.waitMs === undefined ? {} : { waitMs: entry.waitMs }),
      },
      'upstream attempt failed',
    );
  }

  /** A deployment the router passed over (open circuit): part of the request's story, no line of its own. */
  deploymentSkipped(rec: RequestRecord, deployment: string, attempt: number): void {
    (rec.attemptLog ??= []).push({ deployment, attempt, outcome: 'skipped', why: 'circuit_open' });
  }

  /** The attempt that answered, once the story has begun (a clean first attempt adds nothing). */
  attemptSucceeded(rec: RequestRecord, deployment: string, attempt: number): void {
    rec.attemptLog?.push({ deployment, attempt, outcome: 'success' });
  }

  /**
   * A request refused for the gateway's own keys: 401 (no key, a wrong key) or 403 (a key not allowed
   * there). Always counted; logged at `warn`, at most one line per AUTH_LOG_INTERVAL_MS with the count of
   * the ones not logged since (a brute-force attempt must not flood the log).
   */
  recordAuthFailure(failure: AuthFailure): void {
    this.m?.authFailures.labels(failure.reason).inc();
    this.authFailures.record(failure);
  }

  /** The router moved on to the next deployment of `modelLabel` (the bounded RequestRecord.modelLabel). */
  recordFallback(modelLabel: string): void {
    if (!this.m) return;
    this.m.fallbacks.labels(this.models.value(modelLabel)).inc();
  }

  /**
   * A deployment's circuit breaker changed state. Either (provider, upstream model, state), or
   * (deployment, state) with DeploymentHealth's id "<provider>/<upstream model>" (the model may itself
   * contain "/"), so `health.onStateChange = (d, s) => obs.recordCircuitState(d, s)` works as is.
   */
  recordCircuitState(deployment: string, state: CircuitStateName): void;
  recordCircuitState(provider: string, model: string, state: CircuitStateName): void;
  recordCircuitState(a: string, b: string, c?: CircuitStateName): void {
    if (!this.m) return;
    let provider: string;
    let model: string;
    let state: CircuitStateName;
    if (c === undefined) {
      const slash = a.indexOf('/');
      provider = slash < 0 ? a : a.slice(0, slash);
      model = slash < 0 ? '' : a.slice(slash + 1);
      state = b as CircuitStateName;
    } else {
      provider = a;
      model = b;
      state = c;
    }
    const value = CIRCUIT_STATE_VALUE[state];
    if (value === undefined) return;
    const p = this.providers.value(provider);
    const mLabel = this.deploymentModels.value(model);
    this.seeded.add(p + '\u0000' + mLabel);
    this.m.circuitState.labels(p, mLabel).set(value);
    this.m.circuitTransitions.labels(p, state).inc();
  }

  /**
   * Show configured deployments ("<provider>/<upstream model>") as closed before anything happens to
   * them, so the circuit panel lists every deployment; states already recorded are left alone.
   */
  seedCircuitStates(deployments: Iterable<string>): void {
    if (!this.m) return;
    for (const d of deployments) {
      const slash = d.indexOf('/');
      if (slash < 0) continue;
      const provider = this.providers.value(d.slice(0, slash));
      const model = this.deploymentModels.value(d.slice(slash + 1));
      const key = provider + '\u0000' + model;
      if (this.seeded.has(key)) continue;
      this.seeded.add(key);
      this.m.circuitState.labels(provider, model).set(CIRCUIT_STATE_VALUE.closed);
    }
  }

  /** A call to the shared state store failed (the store's onError, and saves refused for size). */
  /** A WebSocket connection opened (the upgrade was accepted). */
  socketOpened(frontDoor: GenerationDoor): void {
    if (this.m) this.m.openSockets.child(frontDoor).inc();
  }

  /** A WebSocket connection closed, and why. */
  socketClosed(frontDoor: GenerationDoor, reason: string): void {
    if (!this.m) return;
    this.m.openSockets.child(frontDoor).dec();
    this.m.socketCloses.labels(frontDoor, reason).inc();
  }

  /** Requests the drain's deadline ended (http/in-flight.ts), per front door. */
  recordShutdownCut(frontDoor: GenerationDoor, count: number): void {
    if (this.m && count > 0) this.m.shutdownCut.labels(frontDoor).inc(count);
  }

  /** Gateway processes seen on the shared state store (state/instance-registry.ts). */
  setInstances(count: number): void {
    this.m?.instances.set(count);
  }

  recordStateError(op: string): void {
    if (!this.m) return;
    this.m.stateErrors.labels(STATE_OPS.has(op) ? op : 'other').inc();
  }

  // --- logging helpers --------------------------------------------------------------------------

  /** Mask configured secrets and credential-shaped tokens in text about to be logged. */
  redact(text: string): string {
    return this.mask(text);
  }

  /** An error as a log-safe plain object: `logger.error({ err: obs.safeError(err) }, …)`. */
  safeError(err: unknown): Record<string, unknown> {
    return safeErrorObject(err, this.mask);
  }

  // --- exposition ------------------------------------------------------------------------------

  /** Content type of metricsText(): Prometheus text exposition format 0.0.4. */
  get metricsContentType(): string {
    return this.m ? this.m.registry.contentType : 'text/plain; version=0.0.4; charset=utf-8';
  }

  /** The scrape body; empty when metrics are disabled. */
  async metricsText(): Promise<string> {
    return this.m ? this.m.registry.metrics() : '';
  }

  /** The registry itself (cluster workers hand it to serveWorkerMetrics); undefined when disabled. */
  get registry(): GatewayMetrics['registry'] | undefined {
    return this.m?.registry;
  }
}
