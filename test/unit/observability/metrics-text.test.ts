// The /metrics text for a fixed mix of requests, compared with the text the observer rendered when
// every metric was a prom-client one (the fixture was written by that version, before the per-request
// series moved to fast-metrics.ts): names, HELP/TYPE, labels, buckets, series order and values must
// not move, since dashboards and alert rules read them.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { AggregatorRegistry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { Observability } from '../../../src/observability/observer.js';
import { RequestRecord } from '../../../src/observability/request-record.js';
import { captureLogger } from './support.js';

const GOLDEN = fileURLToPath(new URL('./fixtures/metrics-text.golden.txt', import.meta.url));

function record(i: number, over: Partial<RequestRecord>): RequestRecord {
  const t = 10_000 + i * 10;
  const rec = new RequestRecord(`req_${i}`, 'messages', t);
  Object.assign(rec, {
    requestedModel: 'fast',
    modelLabel: 'fast',
    provider: 'anthropic',
    upstreamProtocol: 'messages',
    upstreamModel: 'claude-x',
    lane: 'passthrough',
    status: 200,
    attempts: 1,
    tDecoded: t + 0.03 * (i % 7),
    tRouted: t + 0.2,
    tUpstreamSent: t + 0.3,
    tUpstreamHeaders: t + 0.3 + 4 * i,
    tUpstreamFirstByte: t + 0.4 + 4 * i,
    tUpstreamEnd: t + 1 + 9 * i,
    tEnd: t + 1.2 + 9 * i + 0.05 * (i % 5),
    usage: { inputTokens: 100 + i, outputTokens: 10 * i, cacheReadTokens: i % 3, cacheWriteTokens: 0, reasoningTokens: i % 2 },
  });
  Object.assign(rec, over);
  return rec;
}

/** One observer through a mix of lanes, doors, outcomes, keys and events. */
function scenario(): Observability {
  const obs = new Observability({ metricsEnabled: true, logger: captureLogger('warn').logger, processMetrics: false });
  obs.setModelLabels(['fast', 'smart', 'gpt-*']);
  obs.setProviderLabels(['anthropic', 'openai', 'p"quoted\\']);
  obs.setAccess(['ci', 'alice'], ['platform'], [
    { scope: 'key', owner: 'ci', usd: 10 },
    { scope: 'team', owner: 'platform', usd: 100 },
  ]);
  obs.seedCircuitStates(['anthropic/claude-x', 'openai/gpt-4.1']);
  const recs: RequestRecord[] = [
    record(0, {}),
    record(1, { keyName: 'ci', teamName: 'platform', costMicros: 1234 }),
    record(2, { frontDoor: 'responses', upstreamProtocol: 'chat', provider: 'openai', lane: 'translation', modelLabel: 'gpt-*', encodeMs: 0.07, stream: true, tFirstToken: 10_025 }),
    record(3, { status: 429, errorKind: 'rate_limit_error', usage: undefined, tUpstreamEnd: 0, keyName: 'alice', teamName: '' }),
    record(4, { status: 502, errorKind: 'api_error', attempts: 3, retries: 2, fallbacks: 1, upstreamAborted: true, usage: undefined }),
    record(5, { stream: true, tFirstToken: 10_060, clientAborted: true, status: 200, keyName: 'stranger', costMicros: 0 }),
    record(6, { modelLabel: 'unknown-model', provider: 'p"quoted\\', errorKind: 'no-such-kind', status: 500 }),
    record(7, { frontDoor: 'count_tokens', lane: 'local', provider: 'none', upstreamProtocol: 'none', tUpstreamSent: 0, usage: undefined }),
    record(8, { warnings: [{ field: 'tools.3.cache_control', message: 'm' }, { field: 'metadata', message: 'm' }], lane: 'translation', upstreamProtocol: 'responses', provider: 'openai' }),
    record(9, { status: 0, tUpstreamHeaders: 0, keyName: 'ci', teamName: 'platform', usage: { inputTokens: 5, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 3, reasoningTokens: 0 } }),
    record(10, { tDecoded: 0, tRouted: 0, tUpstreamSent: 0, status: 400, errorKind: 'invalid_request_error', usage: undefined }),
    record(11, { stream: true, tFirstToken: 10_113, frontDoor: 'responses', upstreamProtocol: 'responses', costMicros: 77, keyName: 'alice', teamName: 'platform' }),
  ];
  for (const rec of recs) {
    obs.requestStarted(rec);
    if (rec.stream) {
      obs.streamOpened(rec);
      for (let e = 1; e <= 4; e++) obs.eventWritten(rec, rec.tStart + e * 3.7);
    }
    obs.recordAttempt(rec.provider, rec.errorKind ?? 'success');
  }
  // Two still in flight, one of them streaming.
  for (const rec of recs.slice(0, -2)) obs.requestFinished(rec);
  obs.recordFallback('fast');
  obs.recordCircuitState('anthropic/claude-x', 'open');
  obs.recordCircuitState('openai', 'gpt-4.1', 'half-open');
  obs.recordBudgetSpend('key', 'ci', 1.5);
  obs.recordStateError('admit');
  obs.recordStateError('bogus');
  const refusal = { status: 401, method: 'POST', path: '/v1/messages', remoteAddress: '127.0.0.1' };
  obs.recordAuthFailure({ ...refusal, reason: 'invalid_key' });
  obs.recordAuthFailure({ ...refusal, reason: 'invalid_key' });
  obs.recordAuthFailure({ ...refusal, reason: 'forbidden', status: 403 });
  return obs;
}

describe('/metrics text', () => {
  it('is exactly what the prom-client-only observer rendered for the same requests', async () => {
    const text = await scenario().metricsText();
    if (process.env.UPDATE_METRICS_GOLDEN === '1') writeFileSync(GOLDEN, text);
    expect(text).toBe(readFileSync(GOLDEN, 'utf8'));
  });

  it('merges across cluster workers as before (two workers with the same mix)', async () => {
    const a = scenario().registry!;
    const b = scenario().registry!;
    const merged = AggregatorRegistry.aggregate([await a.getMetricsAsJSON(), await b.getMetricsAsJSON()]);
    const text = await merged.metrics();
    expect(text).toContain('switchyard_requests_total{front_door="messages",model="fast",provider="anthropic",upstream_protocol="messages",lane="passthrough",status_class="2xx",error_type="none",transport="http"} 6');
    expect(text).toContain('switchyard_in_flight_requests{front_door="messages"} 2');
    expect(text).toContain('switchyard_in_flight_requests{front_door="responses"} 2');
    expect(text).toContain('switchyard_routing_seconds_count 20');
    expect(text).toContain('switchyard_tokens_total{model="fast",provider="anthropic",kind="input"} ');
    expect(text).toMatch(/switchyard_key_requests_total\{key="ci",team="platform",status_class="2xx"\} 2\n/);
  });
});
