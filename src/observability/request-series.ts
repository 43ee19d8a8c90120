// The metric series a finished request lands in, bound once per kind of request instead of looked up
// label by label on every request. A kind is the tuple of (already bounded) label values the series
// share: front door, model, provider, upstream protocol, lane, stream; for the per-key series, key,
// team and model. Each series is bound on first use, so no series shows up in /metrics before a
// request put something in it (as with prom-client). There are no more kinds than requests_total
// (key_requests_total) has series, so the caches are as bounded as the labels.
import type { CounterSink, HistogramSink } from './fast-metrics.js';
import { errorTypeLabel, statusClassLabel } from './label-limits.js';
import type { GatewayMetrics } from './metrics.js';
import type { RequestDurations } from './request-line.js';
import type { RequestRecord } from './request-record.js';

const TOKEN_KINDS = ['input', 'output', 'cache_read', 'cache_write', 'reasoning'] as const;
const SUCCESS = '2xx\u0000none';

/** The per-request series of one (front door, model, provider, upstream protocol, lane, stream). */
export class RequestSeries {
  private readonly outcomes = new Map<string, CounterSink>();
  private readonly routing: HistogramSink;
  private decode: HistogramSink | undefined;
  private encode: HistogramSink | undefined;
  private ttfb: HistogramSink | undefined;
  private upstream: HistogramSink | undefined;
  private ttft: HistogramSink | undefined;
  private duration: HistogramSink | undefined;
  private overhead: HistogramSink | undefined;
  private readonly tokens: (CounterSink | undefined)[] = [undefined, undefined, undefined, undefined, undefined];

  constructor(
    private readonly m: GatewayMetrics,
    private readonly frontDoor: string,
    private readonly model: string,
    private readonly provider: string,
    private readonly protocol: string,
    private readonly lane: string,
    private readonly stream: 'true' | 'false',
    private readonly transport: string,
  ) {
    this.routing = m.routing.child();
  }

  /** Everything of a finished request that these labels describe (not the per-key series). */
  record(rec: RequestRecord, s: RequestDurations): void {
    const m = this.m;
    this.outcome(statusClassLabel(rec.status), errorTypeLabel(rec.errorKind)).inc();
    if (rec.tDecoded !== 0) (this.decode ??= m.decode.child(this.frontDoor)).observe((rec.tDecoded - rec.tStart) / 1000);
    if (rec.tRouted !== 0 && rec.tDecoded !== 0) this.routing.observe((rec.tRouted - rec.tDecoded) / 1000);
    if (rec.encodeMs > 0) (this.encode ??= m.encode.child(this.frontDoor)).observe(rec.encodeMs / 1000);
    if (rec.tUpstreamSent !== 0) {
      const answered = rec.tUpstreamHeaders !== 0 ? rec.tUpstreamHeaders : rec.tUpstreamFirstByte;
      if (answered !== 0) (this.ttfb ??= m.upstreamTtfb.child(this.provider, this.protocol)).observe((answered - rec.tUpstreamSent) / 1000);
    }
    if (s.upstreamMs >= 0) (this.upstream ??= m.upstreamDuration.child(this.provider, this.protocol)).observe(s.upstreamMs / 1000);
    if (s.ttftMs >= 0) (this.ttft ??= m.ttft.child(this.frontDoor, this.model, this.provider, this.lane)).observe(s.ttftMs / 1000);
    (this.duration ??= m.requestDuration.child(this.frontDoor, this.model, this.provider, this.lane, this.stream)).observe(s.totalMs / 1000);
    if (s.overheadMs >= 0 && rec.attempts <= 1) (this.overhead ??= m.overhead.child(this.frontDoor, this.lane)).observe(s.overheadMs / 1000);
    const u = rec.usage;
    if (u) {
      if (u.inputTokens > 0) this.token(0).inc(u.inputTokens);
      if (u.outputTokens > 0) this.token(1).inc(u.outputTokens);
      if (u.cacheReadTokens > 0) this.token(2).inc(u.cacheReadTokens);
      if (u.cacheWriteTokens > 0) this.token(3).inc(u.cacheWriteTokens);
      if (u.reasoningTokens > 0) this.token(4).inc(u.reasoningTokens);
    }
  }

  private outcome(statusClass: string, errorType: string): CounterSink {
    const key = errorType === 'none' && statusClass === '2xx' ? SUCCESS : statusClass + '\u0000' + errorType;
    let c = this.outcomes.get(key);
    if (c === undefined) {
      c = this.m.requests.child(this.frontDoor, this.model, this.provider, this.protocol, this.lane, statusClass, errorType, this.transport);
      this.outcomes.set(key, c);
    }
    return c;
  }

  private token(kind: number): CounterSink {
    return (this.tokens[kind] ??= this.m.tokens.child(this.model, this.provider, TOKEN_KINDS[kind]!));
  }
}

/** The per-key series of one (key, team, model). */
export class KeySeries {
  private readonly byStatus = new Map<string, CounterSink>();
  private input: CounterSink | undefined;
  private output: CounterSink | undefined;
  private cost: CounterSink | undefined;

  constructor(
    private readonly m: GatewayMetrics,
    private readonly key: string,
    private readonly team: string,
    private readonly model: string,
  ) {}

  record(rec: RequestRecord): void {
    const status = statusClassLabel(rec.status);
    let c = this.byStatus.get(status);
    if (c === undefined) {
      c = this.m.keyRequests.child(this.key, this.team, status);
      this.byStatus.set(status, c);
    }
    c.inc();
    const u = rec.usage;
    if (u) {
      if (u.inputTokens > 0) (this.input ??= this.m.keyTokens.child(this.key, this.team, 'input')).inc(u.inputTokens);
      if (u.outputTokens > 0) (this.output ??= this.m.keyTokens.child(this.key, this.team, 'output')).inc(u.outputTokens);
    }
    if (rec.costMicros >= 0) (this.cost ??= this.m.cost.child(this.key, this.team, this.model)).inc(rec.costMicros / 1_000_000);
  }
}
