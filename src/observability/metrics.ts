// Every Prometheus metric of the gateway, defined once, on a dedicated Registry (never prom-client's
// global one, so tests and workers can hold several and nothing leaks in from libraries).
// Names carry the `switchyard_` prefix and their unit; label values come only from bounded sets
// (see label-limits.ts): the observer enforces that before any value reaches a label here.
// Grafana dashboards and alert rules (grafana/) use exactly these names.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { FastCounter, FastGauge, FastHistogram } from './fast-metrics.js';

export { FastHistogram, type CounterSink, type GaugeSink, type HistogramSink } from './fast-metrics.js';

export const PREFIX = 'switchyard_';

/** Codec stages (decode, routing, encode): 10 µs … 100 ms. */
export const CODEC_BUCKETS: readonly number[] = [
  0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
];
/** Whole requests, upstream calls, time to first token: 5 ms … 5 min. */
export const LATENCY_BUCKETS: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300,
];
/** Gaps between two events of one stream: token cadence is tens of ms; stalls run to a minute. */
export const EVENT_GAP_BUCKETS: readonly number[] = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
];
/** What the gateway adds on top of the upstream: 100 µs … 5 s (sub-ms resolution for the p99 alert). */
export const OVERHEAD_BUCKETS: readonly number[] = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
];

/** Circuit-breaker state as a gauge value. */
export const CIRCUIT_STATE_VALUE = { closed: 0, open: 1, 'half-open': 2 } as const;
export type CircuitStateName = keyof typeof CIRCUIT_STATE_VALUE;

export interface MetricsOptions {
  /** Also export Node process metrics (CPU, memory, event-loop lag, GC) under the same prefix. */
  processMetrics?: boolean;
}

export type GatewayMetrics = ReturnType<typeof createMetrics>;

/** All metrics on a fresh Registry. One call per Observability (tests make many; that is fine). */
export function createMetrics(options: MetricsOptions = {}) {
  const registry = new Registry();
  const registers = [registry];
  const n = (name: string) => PREFIX + name;

  // Requests ------------------------------------------------------------------------------------
  const requests = new FastCounter(
    n('requests_total'),
    'Requests answered, by front door, configured model, final provider, lane, HTTP status class, error kind ("none" when it succeeded; set for in-stream errors too) and transport (http, or websocket: one per response.create).',
    ['front_door', 'model', 'provider', 'upstream_protocol', 'lane', 'status_class', 'error_type', 'transport'],
  ).register(registry);
  const inFlight = new FastGauge(
    n('in_flight_requests'),
    'Requests received and not yet finished.',
    ['front_door'],
  ).register(registry);
  const openSockets = new FastGauge(
    n('websocket_connections'),
    'WebSocket connections open toward callers (Responses WebSocket mode).',
    ['front_door'],
  ).register(registry);
  const socketCloses = new Counter({
    name: n('websocket_closes_total'),
    help: 'WebSocket connections closed, by why: client, idle, connection_limit, drain, key_refused, protocol_error, too_large, ping_timeout.',
    labelNames: ['front_door', 'reason'],
    registers,
  });
  const openStreams = new FastGauge(
    n('open_streams'),
    'Server-sent-event streams open toward callers.',
    ['front_door'],
  ).register(registry);
  const streamsClientAborted = new Counter({
    name: n('streams_client_aborted_total'),
    help: 'Streams the caller disconnected from before the gateway finished them.',
    labelNames: ['front_door'] as const,
    registers,
  });

  // Stage timings -------------------------------------------------------------------------------
  const decode = new FastHistogram(
    n('decode_seconds'),
    'Request arrival to decoded IR (authentication and the caller-side codec).',
    ['front_door'],
    CODEC_BUCKETS,
  ).register(registry);
  const routing = new FastHistogram(
    n('routing_seconds'),
    'Decoded IR to a routing plan (model table lookup and target ordering).',
    [],
    CODEC_BUCKETS,
  ).register(registry);
  const encode = new FastHistogram(
    n('encode_seconds'),
    'Time spent encoding IR into the caller protocol, summed per request (a translated stream: decoding its upstream chunks and encoding their events, timed per chunk).',
    ['front_door'],
    CODEC_BUCKETS,
  ).register(registry);
  const upstreamTtfb = new FastHistogram(
    n('upstream_ttfb_seconds'),
    'Upstream request sent to upstream response headers received (connect + time to first byte), last attempt.',
    ['provider', 'upstream_protocol'],
    LATENCY_BUCKETS,
  ).register(registry);
  const upstreamDuration = new FastHistogram(
    n('upstream_duration_seconds'),
    'Upstream request sent to upstream body fully received (or aborted), last attempt.',
    ['provider', 'upstream_protocol'],
    LATENCY_BUCKETS,
  ).register(registry);
  const ttft = new FastHistogram(
    n('ttft_seconds'),
    'Request arrival to the first content token written to a streaming caller.',
    ['front_door', 'model', 'provider', 'lane'],
    LATENCY_BUCKETS,
  ).register(registry);
  const eventGap = new FastHistogram(
    n('stream_event_gap_seconds'),
    'Time between two consecutive events written to a streaming caller.',
    ['front_door', 'provider'],
    EVENT_GAP_BUCKETS,
  ).register(registry);
  const requestDuration = new FastHistogram(
    n('request_duration_seconds'),
    'Request arrival to the last byte sent to the caller (streams: until the stream closed).',
    ['front_door', 'model', 'provider', 'lane', 'stream'],
    LATENCY_BUCKETS,
  ).register(registry);
  const overhead = new FastHistogram(
    n('gateway_overhead_seconds'),
    'Total duration minus upstream duration, for requests answered by one upstream attempt (retries add backoff, which is policy, not overhead).',
    ['front_door', 'lane'],
    OVERHEAD_BUCKETS,
  ).register(registry);

  // Tokens --------------------------------------------------------------------------------------
  const tokens = new FastCounter(
    n('tokens_total'),
    'Tokens reported by upstreams. input counts all prompt tokens (cache_read and cache_write are subsets); output counts all output tokens (reasoning is a subset).',
    ['model', 'provider', 'kind'],
  ).register(registry);

  // Upstream attempts, retries, fallbacks, aborts -----------------------------------------------
  const upstreamAttempts = new FastCounter(
    n('upstream_attempts_total'),
    'Upstream attempts by provider and outcome ("success" or the gateway error kind).',
    ['provider', 'outcome'],
  ).register(registry);
  const upstreamAborts = new Counter({
    name: n('upstream_aborts_total'),
    help: 'Upstream requests the gateway aborted mid-body (the caller left).',
    labelNames: ['provider'] as const,
    registers,
  });
  const retries = new Counter({
    name: n('retries_total'),
    help: 'Repeated attempts on the same deployment, by configured model.',
    labelNames: ['model'] as const,
    registers,
  });
  const fallbacks = new Counter({
    name: n('fallbacks_total'),
    help: 'Moves to the next deployment of a model after the previous one failed, by configured model.',
    labelNames: ['model'] as const,
    registers,
  });

  // Translation ---------------------------------------------------------------------------------
  const translationWarnings = new Counter({
    name: n('translation_warnings_total'),
    help: 'Fields dropped or downgraded in translation, by (normalised, capped) field name.',
    labelNames: ['field', 'front_door', 'upstream_protocol'] as const,
    registers,
  });

  // Circuit breaker -----------------------------------------------------------------------------
  const circuitState = new Gauge({
    name: n('deployment_circuit_state'),
    help: 'Circuit breaker of a deployment: 0 closed, 1 open, 2 half-open.',
    labelNames: ['provider', 'model'] as const,
    registers,
    // Each cluster worker has its own breaker: show the worst one.
    aggregator: 'max',
  });
  const circuitTransitions = new Counter({
    name: n('deployment_circuit_transitions_total'),
    help: 'Circuit breaker state changes, by provider and the state entered.',
    labelNames: ['provider', 'state'] as const,
    registers,
  });

  // Keys, teams, spend and budgets (issue 12) ---------------------------------------------------
  const cost = new FastCounter(
    n('cost_usd_total'),
    'Cost of answers in USD from the price table (usage x price of the upstream model), by calling key, its team ("none") and configured model.',
    ['key', 'team', 'model'],
  ).register(registry);
  const keyRequests = new FastCounter(
    n('key_requests_total'),
    'Generation requests by calling key, its team ("none") and HTTP status class (refusals by limits are 4xx).',
    ['key', 'team', 'status_class'],
  ).register(registry);
  const keyTokens = new FastCounter(
    n('key_tokens_total'),
    'Tokens reported by upstreams, by calling key, its team ("none") and kind (input, output).',
    ['key', 'team', 'kind'],
  ).register(registry);
  const budget = new Gauge({
    name: n('budget_usd'),
    help: 'Configured budget of a key or team in USD for its current period (scope: key | team).',
    labelNames: ['scope', 'owner'] as const,
    registers,
    // Every worker and instance holds the same configured value: never sum it.
    aggregator: 'max',
  });
  const budgetSpent = new Gauge({
    name: n('budget_spent_usd'),
    help: 'Spend of a key or team in its current budget period, as last read from the shared state store at admission.',
    labelNames: ['scope', 'owner'] as const,
    registers,
    // The state store holds one shared counter; each process saw it at some moment: the latest is the largest.
    aggregator: 'max',
  });
  const stateErrors = new Counter({
    name: n('state_errors_total'),
    help: 'Failed calls to the shared state store (state.backend), by operation.',
    labelNames: ['op'] as const,
    registers,
  });

  const shutdownCut = new Counter({
    name: n('shutdown_cut_total'),
    help: 'Requests and streams still running at the end of a shutdown grace, ended with the protocol\'s retryable error, by front door.',
    labelNames: ['front_door'] as const,
    registers,
  });

  const instances = new Gauge({
    name: n('instances'),
    help: 'Gateway processes seen on the shared state store (Redis heartbeats within 15 s), this one included; 1 on the memory and file backends.',
    registers,
    // Every worker sees the same set: never sum it.
    aggregator: 'max',
  });

  const authFailures = new Counter({
    name: n('auth_failures_total'),
    help: 'Requests refused for the gateway\'s own keys, by reason: missing_key and invalid_key (401), forbidden (403: a key not allowed there, e.g. a caller key on /admin/usage or an admin key calling a model), foreign_host (403: a keyless request the Host/Origin guard refused).',
    labelNames: ['reason'] as const,
    registers,
  });

  if (options.processMetrics) collectDefaultMetrics({ register: registry, prefix: PREFIX });

  return {
    registry,
    requests,
    inFlight,
    openStreams,
    openSockets,
    socketCloses,
    streamsClientAborted,
    decode,
    routing,
    encode,
    upstreamTtfb,
    upstreamDuration,
    ttft,
    eventGap,
    requestDuration,
    overhead,
    tokens,
    upstreamAttempts,
    upstreamAborts,
    retries,
    fallbacks,
    translationWarnings,
    circuitState,
    circuitTransitions,
    cost,
    keyRequests,
    keyTokens,
    budget,
    budgetSpent,
    stateErrors,
    shutdownCut,
    authFailures,
    instances,
  };
}
