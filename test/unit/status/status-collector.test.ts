// The collector behind status.json: per-door and per-deployment windows fed from request records and
// attempts, in-flight and open-stream counts, the last-requests ring, and the --workers merge.
import { describe, expect, it } from 'vitest';
import { RequestRecord } from '../../../src/observability/request-record.js';
import { RECENT_REQUESTS } from '../../../src/status/recent-requests.js';
import { MAX_WILDCARD_DEPLOYMENTS, StatusCollector } from '../../../src/status/status-collector.js';
import { mergeParts, type StatusPart } from '../../../src/status/status-part.js';
import { deploymentsJson, routesJson, trafficJson } from '../../../src/status/status-view.js';
import { resolveConfig } from '../../../src/config/load-config.js';

/** The running config's deployments, as StatusService tells the collector. */
const CONFIGURED = new Set(['bad/m', 'good/m']);
const isConfigured = (id: string) => CONFIGURED.has(id);

const health = { state: (id: string) => (id === 'bad/m' ? ('open' as const) : ('closed' as const)), inFlight: () => 0 };

function finished(c: StatusCollector, door: 'messages' | 'responses', opts: { provider?: string; model?: string; error?: string; ms: number; ttft?: number; prompt?: string }) {
  const rec = new RequestRecord('req_' + Math.random().toString(36).slice(2), door, 0);
  c.requestStarted(rec);
  rec.provider = opts.provider ?? 'none';
  rec.upstreamModel = opts.model ?? '';
  rec.requestedModel = 'alias-a';
  rec.modelLabel = 'alias-a';
  rec.errorKind = opts.error;
  rec.status = opts.error ? 502 : 200;
  rec.keyName = 'k1';
  rec.stream = opts.ttft !== undefined;
  if (rec.stream) {
    rec.tStreamOpened = 1;
    c.streamOpened(rec);
  }
  c.requestFinished(rec, opts.ms, opts.ttft ?? -1);
  return rec;
}

function part(c: StatusCollector, configured: string[] = []): StatusPart {
  return {
    pid: 1,
    startedAt: 0,
    configSource: 'test',
    configHash: 'x',
    configLoadedAt: '',
    lastReload: null,
    draining: false,
    doors: c.doorParts(),
    deployments: c.deploymentParts(configured, health),
    recent: c.recent.toJson(),
    untrackedDeployments: c.untracked,
  };
}

const config = resolveConfig(
  {
    auth: { open: true },
    providers: { good: { protocol: 'messages', base_url: 'http://127.0.0.1:1' }, bad: { protocol: 'chat', base_url: 'http://127.0.0.1:1' } },
    models: { 'alias-a': { targets: [{ provider: 'bad', model: 'm' }, { provider: 'good', model: 'm' }] } },
  },
  'test',
);

describe('status collector', () => {
  it('counts attempts, failures and 429s per deployment, and latency percentiles of its successful requests', () => {
    let now = 1_000_000_000;
    const c = new StatusCollector(() => now, isConfigured);
    for (let i = 0; i < 10; i++) {
      c.attemptEnded('bad/m', i < 3 ? 'rate_limit' : 'api_error');
      c.attemptEnded('good/m', 'success');
      finished(c, 'messages', { provider: 'good', model: 'm', ms: 100 + i * 10, ttft: 20 });
      now += 1000;
    }
    const view = deploymentsJson(part(c, ['bad/m', 'good/m']), config);
    const bad = view.find((d) => d.deployment === 'bad/m')!;
    const good = view.find((d) => d.deployment === 'good/m')!;
    expect(bad.circuit).toBe('open');
    expect(bad.protocol).toBe('chat');
    expect(bad.windows['1m']).toMatchObject({ requests: 10, errors: 10, error_rate: 1, rate_limited: 3, rate_limited_rate: 0.3, p50_ms: null });
    expect(good.windows['1m']).toMatchObject({ requests: 10, errors: 0, error_rate: 0 });
    expect(good.windows['1m'].p50_ms).toBeGreaterThan(125);
    expect(good.windows['1m'].p50_ms).toBeLessThan(165);
    expect(good.windows['1m'].ttft_p50_ms).toBeGreaterThan(17);
    expect(good.windows['1m'].ttft_p50_ms).toBeLessThan(23);
    // Fifteen minutes later the 1-minute and 5-minute windows are empty, the 15-minute one nearly.
    now += 10 * 60_000;
    const later = deploymentsJson(part(c, ['bad/m', 'good/m']), config).find((d) => d.deployment === 'bad/m')!;
    expect(later.windows['1m'].requests).toBe(0);
    expect(later.windows['5m'].requests).toBe(0);
    expect(later.windows['15m'].requests).toBe(10);
  });

  it('tracks in-flight requests and open streams per door, and requests/s with a sparkline', () => {
    const now = 2_000_000_000;
    const c = new StatusCollector(() => now);
    const a = new RequestRecord('r1', 'messages', 0);
    const b = new RequestRecord('r2', 'responses', 0);
    c.requestStarted(a);
    c.requestStarted(b);
    b.tStreamOpened = 1;
    c.streamOpened(b);
    let t = trafficJson(part(c));
    expect(t.in_flight).toBe(2);
    expect(t.open_streams).toBe(1);
    c.requestFinished(b, 5, 2);
    c.requestFinished(a, 5, -1);
    t = trafficJson(part(c));
    expect(t.in_flight).toBe(0);
    expect(t.open_streams).toBe(0);
    const messages = t.doors.find((d) => d.door === 'messages')!;
    expect(messages.windows['1m'].requests).toBe(1);
    expect(messages.series).toHaveLength(90);
    expect(messages.series[89]).toBe(1);
  });

  it('keeps the last 100 requests, newest first, metadata only', () => {
    const c = new StatusCollector();
    for (let i = 0; i < RECENT_REQUESTS + 30; i++) finished(c, i % 2 ? 'messages' : 'responses', { provider: 'good', model: 'm', ms: i });
    const recent = c.recent.toJson();
    expect(recent).toHaveLength(RECENT_REQUESTS);
    expect(recent[0]!.duration_ms).toBe(RECENT_REQUESTS + 29);
    expect(Object.keys(recent[0]!).sort()).toEqual(
      ['alias', 'at', 'attempts', 'client_aborted', 'cost_usd', 'deployment', 'door', 'duration_ms', 'error', 'input_tokens', 'key', 'lane', 'model', 'output_tokens', 'pid', 'request_id', 'status', 'stream', 'ttft_ms', 'warnings'].sort(),
    );
  });

  it('merges workers: sums counts and histograms, keeps the most open circuit and the newest requests', () => {
    const now = 3_000_000_000;
    const c1 = new StatusCollector(() => now, isConfigured);
    const c2 = new StatusCollector(() => now, isConfigured);
    c1.attemptEnded('good/m', 'success');
    c2.attemptEnded('good/m', 'api_error');
    c2.attemptEnded('other/x', 'success');
    finished(c1, 'messages', { provider: 'good', model: 'm', ms: 10 });
    finished(c2, 'messages', { provider: 'good', model: 'm', ms: 1000 });
    const p1 = part(c1, ['good/m']);
    const p2 = part(c2, ['good/m']);
    p2.deployments.find((d) => d.id === 'good/m')!.circuit = 'half-open';
    const merged = mergeParts([p1, p2]);
    const good = deploymentsJson(merged, config).find((d) => d.deployment === 'good/m')!;
    expect(good.windows['1m']).toMatchObject({ requests: 2, errors: 1, error_rate: 0.5 });
    expect(good.windows['1m'].p95_ms).toBeGreaterThan(880);
    expect(good.circuit).toBe('half-open');
    expect(merged.deployments.map((d) => d.id).sort()).toEqual(['good/m', 'other/x']);
    expect(trafficJson(merged).doors.find((d) => d.door === 'messages')!.windows['1m'].requests).toBe(2);
    expect(merged.recent).toHaveLength(2);
  });

  it('routes show each target and the lane a call from each door takes', () => {
    const routes = routesJson(config);
    expect(routes).toEqual([
      {
        alias: 'alias-a',
        wildcard: false,
        strategy: 'fallback',
        targets: [
          { provider: 'bad', protocol: 'chat', model: 'm', weight: 1, deployment: 'bad/m', lanes: { messages: 'translation', responses: 'translation', chat: 'passthrough', gemini: 'translation' } },
          { provider: 'good', protocol: 'messages', model: 'm', weight: 1, deployment: 'good/m', lanes: { messages: 'passthrough', responses: 'translation', chat: 'translation', gemini: 'translation' } },
        ],
      },
    ]);
  });
});

describe('caller-chosen wildcard names (review R7)', () => {
  it('200 made-up names that fail fold into one (other) row per provider; a configured deployment used after keeps its own windows', () => {
    const now = 4_000_000_000;
    const c = new StatusCollector(() => now, isConfigured);
    for (let i = 1; i <= 200; i++) {
      c.attemptEnded(`good/demo-x${String(i).padStart(3, '0')}`, 'not_found');
      finished(c, 'messages', { provider: 'good', model: `demo-x${i}`, error: 'not_found', ms: 5 });
    }
    for (let i = 0; i < 5; i++) {
      c.attemptEnded('bad/m', 'success');
      finished(c, 'messages', { provider: 'bad', model: 'm', ms: 50 });
    }
    const view = deploymentsJson(part(c, ['bad/m', 'good/m']), config);
    expect(view.map((d) => d.deployment)).toEqual(['bad/m', 'good/m', 'good/(other)']);
    expect(view.find((d) => d.deployment === 'bad/m')!.windows['1m']).toMatchObject({ requests: 5, errors: 0 });
    expect(view.find((d) => d.deployment === 'bad/m')!.windows['1m'].p50_ms).toBeGreaterThan(40);
    const other = view.find((d) => d.deployment === 'good/(other)')!;
    expect(other).toMatchObject({ provider: 'good', model: '(other)', other: true, circuit: 'closed', in_flight: 0 });
    expect(other.windows['1m']).toMatchObject({ requests: 200, errors: 200 });
    expect(c.untracked).toBe(200);
  });

  it('names that succeed get their own rows up to the bound, the rest count in (other); configured ones are never crowded out', () => {
    const now = 5_000_000_000;
    const c = new StatusCollector(() => now, isConfigured);
    for (let i = 0; i < MAX_WILDCARD_DEPLOYMENTS + 100; i++) {
      c.attemptEnded(`good/wild-${i}`, 'success');
      finished(c, 'responses', { provider: 'good', model: `wild-${i}`, ms: 10 });
    }
    c.attemptEnded('good/m', 'api_error');
    c.attemptEnded('good/m', 'success');
    finished(c, 'messages', { provider: 'good', model: 'm', ms: 30 });
    const parts = part(c, ['bad/m', 'good/m']).deployments;
    expect(parts.filter((d) => d.model.startsWith('wild-'))).toHaveLength(MAX_WILDCARD_DEPLOYMENTS);
    expect(parts).toHaveLength(2 + MAX_WILDCARD_DEPLOYMENTS + 1);
    const view = deploymentsJson(part(c, ['bad/m', 'good/m']), config);
    expect(view.find((d) => d.deployment === 'good/(other)')!.windows['1m'].requests).toBe(100);
    expect(view.find((d) => d.deployment === 'good/m')!.windows['1m']).toMatchObject({ requests: 2, errors: 1 });
    // A caller's model literally named "(other)" cannot take the aggregate's place.
    c.attemptEnded('bad/(other)', 'success');
    expect(part(c, ['bad/m', 'good/m']).deployments.filter((d) => d.id === 'bad/(other)')).toEqual([expect.objectContaining({ aggregate: true })]);
  });

  it('the aggregate rows merge across workers like any other', () => {
    const now = 6_000_000_000;
    const c1 = new StatusCollector(() => now, isConfigured);
    const c2 = new StatusCollector(() => now, isConfigured);
    c1.attemptEnded('good/nope-1', 'not_found');
    c2.attemptEnded('good/nope-2', 'not_found');
    const merged = deploymentsJson(mergeParts([part(c1, ['good/m']), part(c2, ['good/m'])]), config);
    expect(merged.find((d) => d.deployment === 'good/(other)')!.windows['1m'].requests).toBe(2);
    expect(mergeParts([part(c1), part(c2)]).untrackedDeployments).toBe(2);
  });
});
