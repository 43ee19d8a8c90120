import { describe, expect, it } from 'vitest';
import { MAX_MODEL_LABELS, MAX_WARNING_FIELDS, Observability } from '../../../src/observability/observer.js';
import { RequestRecord } from '../../../src/observability/request-record.js';
import { captureLogger, histogram, samples, valueOf } from './support.js';

function newObs(options: { metricsEnabled?: boolean; models?: string[] } = {}) {
  const log = captureLogger();
  const obs = new Observability({ metricsEnabled: options.metricsEnabled ?? true, logger: log.logger, processMetrics: false });
  if (options.models) obs.setModelLabels(options.models);
  return { obs, log };
}

/** A streamed Messages request translated to a Chat upstream, with every timestamp reached. */
function filledRecord(): RequestRecord {
  const t = 1_000;
  const rec = new RequestRecord('req_1', 'messages', t);
  rec.stream = true;
  rec.requestedModel = 'fast';
  rec.modelLabel = 'fast';
  rec.provider = 'up-chat';
  rec.upstreamProtocol = 'chat';
  rec.upstreamModel = 'chat-model-1';
  rec.lane = 'translation';
  rec.status = 200;
  rec.attempts = 1;
  rec.tDecoded = t + 0.2; // 200 µs
  rec.tRouted = t + 0.25; // 50 µs
  rec.tUpstreamSent = t + 0.3;
  rec.tUpstreamHeaders = t + 120.3; // 120 ms TTFB
  rec.tUpstreamFirstByte = t + 121;
  rec.tFirstToken = t + 150; // 150 ms TTFT
  rec.tUpstreamEnd = t + 1_000.3; // upstream 1 s
  rec.tEnd = t + 1_002; // total 1.002 s → overhead 2 ms
  rec.encodeMs = 0.4;
  rec.usage = { inputTokens: 100, outputTokens: 50, cacheReadTokens: 80, cacheWriteTokens: 10, reasoningTokens: 20 };
  rec.finishReason = 'end_turn';
  rec.warnings = [{ field: 'tools.2.cache_control', message: 'not supported by chat' }];
  return rec;
}

describe('Observability metrics from a filled RequestRecord', () => {
  it('lands every value in the right series', async () => {
    const { obs } = newObs({ models: ['fast'] });
    obs.setProviderLabels(['up-chat']);
    const rec = filledRecord();
    obs.requestStarted(rec);
    expect(valueOf(await samples(obs, 'switchyard_in_flight_requests'), { front_door: 'messages' })).toBe(1);
    obs.streamOpened(rec);
    expect(valueOf(await samples(obs, 'switchyard_open_streams'), { front_door: 'messages' })).toBe(1);
    obs.eventWritten(rec, 1_100);
    obs.eventWritten(rec, 1_120); // gap 20 ms
    obs.eventWritten(rec, 1_170); // gap 50 ms
    obs.requestFinished(rec);

    const requests = await samples(obs, 'switchyard_requests_total');
    expect(requests).toHaveLength(1);
    expect(requests[0]!.labels).toEqual({
      front_door: 'messages',
      model: 'fast',
      provider: 'up-chat',
      upstream_protocol: 'chat',
      lane: 'translation',
      status_class: '2xx',
      error_type: 'none',
      transport: 'http',
    });
    expect(requests[0]!.value).toBe(1);

    expect(valueOf(await samples(obs, 'switchyard_in_flight_requests'), { front_door: 'messages' })).toBe(0);
    expect(valueOf(await samples(obs, 'switchyard_open_streams'), { front_door: 'messages' })).toBe(0);

    const close = (actual: number | undefined, expected: number) => expect(actual).toBeCloseTo(expected, 6);
    close((await histogram(obs, 'switchyard_decode_seconds', { front_door: 'messages' }))?.sum, 0.0002);
    close((await histogram(obs, 'switchyard_routing_seconds'))?.sum, 0.00005);
    close((await histogram(obs, 'switchyard_encode_seconds', { front_door: 'messages' }))?.sum, 0.0004);
    close((await histogram(obs, 'switchyard_upstream_ttfb_seconds', { provider: 'up-chat', upstream_protocol: 'chat' }))?.sum, 0.12);
    close((await histogram(obs, 'switchyard_upstream_duration_seconds', { provider: 'up-chat', upstream_protocol: 'chat' }))?.sum, 1.0);
    close((await histogram(obs, 'switchyard_ttft_seconds', { front_door: 'messages', model: 'fast', provider: 'up-chat', lane: 'translation' }))?.sum, 0.15);
    close(
      (await histogram(obs, 'switchyard_request_duration_seconds', { front_door: 'messages', model: 'fast', provider: 'up-chat', lane: 'translation', stream: 'true' }))?.sum,
      1.002,
    );
    close((await histogram(obs, 'switchyard_gateway_overhead_seconds', { front_door: 'messages', lane: 'translation' }))?.sum, 0.002);

    const gaps = await histogram(obs, 'switchyard_stream_event_gap_seconds', { front_door: 'messages', provider: 'up-chat' });
    expect(gaps?.count).toBe(2);
    close(gaps?.sum, 0.07);
    // The 20 ms gap sits in the 0.025 bucket, the 50 ms one in 0.05 (cumulative counts).
    const gapList = await samples(obs, 'switchyard_stream_event_gap_seconds');
    expect(valueOf(gapList, { le: 0.01 }, 'switchyard_stream_event_gap_seconds_bucket')).toBe(0);
    expect(valueOf(gapList, { le: 0.025 }, 'switchyard_stream_event_gap_seconds_bucket')).toBe(1);
    expect(valueOf(gapList, { le: 0.05 }, 'switchyard_stream_event_gap_seconds_bucket')).toBe(2);
    expect(valueOf(gapList, { le: '+Inf' }, 'switchyard_stream_event_gap_seconds_bucket')).toBe(2);

    const tokens = await samples(obs, 'switchyard_tokens_total');
    const byKind = Object.fromEntries(tokens.map((s) => [s.labels.kind, s.value]));
    expect(byKind).toEqual({ input: 100, output: 50, cache_read: 80, cache_write: 10, reasoning: 20 });
    expect(tokens.every((s) => s.labels.model === 'fast' && s.labels.provider === 'up-chat')).toBe(true);

    const warnings = await samples(obs, 'switchyard_translation_warnings_total');
    expect(warnings.map((s) => [s.labels, s.value])).toEqual([[{ field: 'tools.*.cache_control', front_door: 'messages', upstream_protocol: 'chat' }, 1]]);
  });

  it('skips stages that were not reached (0 timestamps) and counts early failures', async () => {
    const { obs } = newObs({ models: ['fast'] });
    const rec = new RequestRecord('req_2', 'responses', 500);
    obs.requestStarted(rec);
    rec.tDecoded = 500.1;
    rec.status = 400;
    rec.errorKind = 'invalid_request';
    rec.tEnd = 500.5;
    obs.requestFinished(rec);

    const requests = await samples(obs, 'switchyard_requests_total');
    expect(requests.map((s) => s.labels)).toEqual([
      { front_door: 'responses', model: 'other', provider: 'none', upstream_protocol: 'none', lane: 'none', status_class: '4xx', error_type: 'invalid_request', transport: 'http' },
    ]);
    expect((await histogram(obs, 'switchyard_routing_seconds'))?.count).toBe(0);
    expect(await samples(obs, 'switchyard_upstream_duration_seconds')).toEqual([]);
    expect(await samples(obs, 'switchyard_upstream_ttfb_seconds')).toEqual([]);
    expect(await samples(obs, 'switchyard_ttft_seconds')).toEqual([]);
    expect(await samples(obs, 'switchyard_gateway_overhead_seconds')).toEqual([]);
    expect(await samples(obs, 'switchyard_encode_seconds')).toEqual([]);
    expect(await samples(obs, 'switchyard_tokens_total')).toEqual([]);
    expect((await histogram(obs, 'switchyard_decode_seconds', { front_door: 'responses' }))?.count).toBe(1);
  });

  it('records retries, fallbacks, attempts, aborts, and in-stream errors', async () => {
    const { obs } = newObs({ models: ['fast'] });
    obs.setProviderLabels(['a', 'b']);
    const rec = filledRecord();
    rec.provider = 'b';
    rec.attempts = 3;
    rec.retries = 1;
    rec.fallbacks = 1;
    rec.errorKind = 'overloaded';
    rec.clientAborted = true;
    rec.upstreamAborted = true;
    obs.requestStarted(rec);
    obs.recordAttempt('a', 'rate_limit');
    obs.recordAttempt('a', 'rate_limit');
    obs.recordFallback('fast');
    obs.recordAttempt('b', 'success');
    obs.recordAttempt('b', 'made-up-kind');
    obs.streamOpened(rec);
    obs.requestFinished(rec);

    const attempts = await samples(obs, 'switchyard_upstream_attempts_total');
    expect(valueOf(attempts, { provider: 'a', outcome: 'rate_limit' })).toBe(2);
    expect(valueOf(attempts, { provider: 'b', outcome: 'success' })).toBe(1);
    expect(valueOf(attempts, { provider: 'b', outcome: 'other' })).toBe(1);
    expect(valueOf(await samples(obs, 'switchyard_fallbacks_total'), { model: 'fast' })).toBe(1);
    expect(valueOf(await samples(obs, 'switchyard_retries_total'), { model: 'fast' })).toBe(1);
    expect(valueOf(await samples(obs, 'switchyard_streams_client_aborted_total'), { front_door: 'messages' })).toBe(1);
    expect(valueOf(await samples(obs, 'switchyard_upstream_aborts_total'), { provider: 'b' })).toBe(1);
    const requests = await samples(obs, 'switchyard_requests_total');
    expect(requests[0]!.labels).toMatchObject({ status_class: '2xx', error_type: 'overloaded', provider: 'b' });
    // More than one attempt: the total includes backoff, so no overhead sample.
    expect(await samples(obs, 'switchyard_gateway_overhead_seconds')).toEqual([]);
  });

  it('sets circuit state from (provider, model, state) and from a DeploymentHealth id', async () => {
    const { obs } = newObs();
    obs.recordCircuitState('up-chat', 'chat-model-1', 'open');
    obs.recordCircuitState('up-responses/org/model-with/slashes', 'half-open');
    const state = await samples(obs, 'switchyard_deployment_circuit_state');
    expect(valueOf(state, { provider: 'up-chat', model: 'chat-model-1' })).toBe(1);
    expect(valueOf(state, { provider: 'up-responses', model: 'org/model-with/slashes' })).toBe(2);
    obs.recordCircuitState('up-chat', 'chat-model-1', 'closed');
    expect(valueOf(await samples(obs, 'switchyard_deployment_circuit_state'), { provider: 'up-chat', model: 'chat-model-1' })).toBe(0);
    const transitions = await samples(obs, 'switchyard_deployment_circuit_transitions_total');
    expect(valueOf(transitions, { provider: 'up-chat', state: 'open' })).toBe(1);
    expect(valueOf(transitions, { provider: 'up-chat', state: 'closed' })).toBe(1);
    expect(valueOf(transitions, { provider: 'up-responses', state: 'half-open' })).toBe(1);
  });

  it('seeds configured deployments as closed without overwriting a recorded state', async () => {
    const { obs } = newObs();
    obs.recordCircuitState('up-chat', 'chat-model-1', 'open');
    obs.seedCircuitStates(['up-chat/chat-model-1', 'up-messages/claude-x', 'no-slash']);
    const state = await samples(obs, 'switchyard_deployment_circuit_state');
    expect(state.map((s) => [s.labels.provider, s.labels.model, s.value])).toEqual([
      ['up-chat', 'chat-model-1', 1],
      ['up-messages', 'claude-x', 0],
    ]);
    expect(await samples(obs, 'switchyard_deployment_circuit_transitions_total')).toHaveLength(1);
  });
});

describe('bounded labels', () => {
  it('turns models outside the configured set into "other"', async () => {
    const { obs } = newObs({ models: ['fast', 'claude-*'] });
    for (const label of ['fast', 'claude-*', 'gpt-unknown', 'x'.repeat(10_000)]) {
      const rec = new RequestRecord('r', 'messages', 0);
      rec.modelLabel = label;
      rec.tEnd = 1;
      obs.requestFinished(rec);
    }
    obs.recordFallback('not-configured');
    const models = (await samples(obs, 'switchyard_requests_total')).map((s) => [s.labels.model, s.value]);
    expect(models).toEqual([
      ['fast', 1],
      ['claude-*', 1],
      ['other', 2],
    ]);
    expect((await samples(obs, 'switchyard_fallbacks_total')).map((s) => s.labels.model)).toEqual(['other']);
  });

  it('caps distinct model labels even without a configured set', async () => {
    const { obs } = newObs();
    for (let i = 0; i < MAX_MODEL_LABELS + 50; i++) {
      const rec = new RequestRecord('r', 'messages', 0);
      rec.modelLabel = `m-${i}`;
      rec.tEnd = 1;
      obs.requestFinished(rec);
    }
    const models = new Set((await samples(obs, 'switchyard_requests_total')).map((s) => s.labels.model));
    expect(models.size).toBe(MAX_MODEL_LABELS + 1);
    expect(models.has('other')).toBe(true);
    expect(models.has(`m-${MAX_MODEL_LABELS + 10}`)).toBe(false);
  });

  it('bounds provider labels and upstream models of circuit states', async () => {
    const { obs } = newObs();
    obs.setProviderLabels(['known']);
    obs.recordAttempt('unknown-provider', 'success');
    obs.recordCircuitState('known', 'm'.repeat(1000), 'open');
    expect((await samples(obs, 'switchyard_upstream_attempts_total'))[0]!.labels.provider).toBe('other');
    expect((await samples(obs, 'switchyard_deployment_circuit_state'))[0]!.labels).toEqual({ provider: 'known', model: 'other' });
  });

  it('normalises warning fields and caps how many distinct ones become labels', async () => {
    const { obs } = newObs({ models: ['fast'] });
    const rec = new RequestRecord('r', 'responses', 0);
    rec.tEnd = 1;
    rec.warnings = [
      { field: 'input.3.content.0.detail', message: '' },
      { field: 'input.7.content.2.detail', message: '' },
      { field: 'tools[12].strict', message: '' },
      { field: 'metadata.{"weird": "key\n"}', message: '' },
      { field: 'a'.repeat(500), message: '' },
      { field: '', message: '' },
    ];
    for (let i = 0; i < MAX_WARNING_FIELDS + 20; i++) rec.warnings.push({ field: `extras.field_${i}`, message: '' });
    obs.requestFinished(rec);
    const fields = (await samples(obs, 'switchyard_translation_warnings_total')).map((s) => [s.labels.field, s.value] as const);
    const byField = new Map(fields);
    expect(byField.get('input.*.content.*.detail')).toBe(2);
    expect(byField.get('tools[*].strict')).toBe(1);
    expect(byField.get('metadata.weirdkey')).toBe(1);
    expect(byField.get('a'.repeat(64))).toBe(1);
    expect(byField.size).toBe(MAX_WARNING_FIELDS + 1);
    // The empty field, plus the extras that came after the cap was reached (4 distinct fields came first).
    const extrasKept = MAX_WARNING_FIELDS - 4;
    expect(byField.get('other')).toBe(1 + (MAX_WARNING_FIELDS + 20 - extrasKept));
    for (const [field] of fields) expect(field).toMatch(/^[A-Za-z0-9_.*[\]-]{1,64}$/);
  });
});

describe('the per-request log line', () => {
  it('writes one info line with the request summary', () => {
    const { obs, log } = newObs({ models: ['fast'] });
    const rec = filledRecord();
    obs.requestStarted(rec);
    obs.requestFinished(rec);
    const lines = log.lines();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 30,
      msg: 'request finished',
      requestId: 'req_1',
      frontDoor: 'messages',
      model: 'fast',
      modelLabel: 'fast',
      provider: 'up-chat',
      upstreamProtocol: 'chat',
      upstreamModel: 'chat-model-1',
      lane: 'translation',
      stream: true,
      status: 200,
      attempts: 1,
      durationMs: 1002,
      upstreamMs: 1000,
      overheadMs: 2,
      ttftMs: 150,
      tokens: { input: 100, output: 50, cacheRead: 80, cacheWrite: 10, reasoning: 20 },
      finishReason: 'end_turn',
      warningCount: 1,
      warnings: [{ field: 'tools.2.cache_control', message: 'not supported by chat' }],
    });
    expect(lines[0]!.errorKind).toBeUndefined();
  });

  it('with metrics disabled, keeps the log line and does nothing else', async () => {
    const { obs, log } = newObs({ metricsEnabled: false });
    const rec = filledRecord();
    rec.errorKind = 'timeout';
    rec.status = 504;
    obs.requestStarted(rec);
    obs.streamOpened(rec);
    obs.eventWritten(rec, 2_000);
    obs.recordAttempt('x', 'success');
    obs.recordFallback('fast');
    obs.recordCircuitState('x', 'y', 'open');
    obs.requestFinished(rec);
    expect(rec.eventGapSink).toBeUndefined();
    expect(rec.tStreamOpened).toBe(0);
    expect(obs.registry).toBeUndefined();
    expect(await obs.metricsText()).toBe('');
    expect(log.lines()).toHaveLength(1);
    expect(log.lines()[0]).toMatchObject({ errorKind: 'timeout', status: 504 });
  });
});

describe('exposition', () => {
  it('renders Prometheus text with unit-suffixed, prefixed names', async () => {
    const { obs } = newObs({ models: ['fast'] });
    const rec = filledRecord();
    obs.requestStarted(rec);
    obs.streamOpened(rec);
    obs.eventWritten(rec, 1_100);
    obs.eventWritten(rec, 1_101);
    obs.requestFinished(rec);
    const text = await obs.metricsText();
    expect(obs.metricsContentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(text).toContain('switchyard_requests_total{front_door="messages",model="fast"');
    expect(text).toContain('# TYPE switchyard_stream_event_gap_seconds histogram');
    expect(text).toContain('switchyard_stream_event_gap_seconds_bucket{le="0.001",front_door="messages",provider="up-chat"} 1');
    expect(text).toContain('switchyard_stream_event_gap_seconds_count{front_door="messages",provider="up-chat"} 1');
    const names = new Set([...text.matchAll(/^# TYPE (\S+) (\S+)/gm)].map((m) => `${m[1]} ${m[2]}`));
    for (const entry of names) {
      const [name, type] = entry.split(' ') as [string, string];
      expect(name).toMatch(/^switchyard_/);
      if (type === 'counter') expect(name).toMatch(/_total$/);
      if (type === 'histogram') expect(name).toMatch(/_seconds$/);
    }
  });
});

describe('state store errors', () => {
  it('every op starts at 0; failures count per op; an op outside the fixed set is "other"', async () => {
    const { obs } = newObs();
    const before = await samples(obs, 'switchyard_state_errors_total');
    expect(before.length).toBe(11);
    expect(before.every((s) => s.value === 0)).toBe(true);
    obs.recordStateError('get');
    obs.recordStateError('get');
    obs.recordStateError('put');
    obs.recordStateError('made-up');
    const after = await samples(obs, 'switchyard_state_errors_total');
    expect(valueOf(after, { op: 'get' })).toBe(2);
    expect(valueOf(after, { op: 'put' })).toBe(1);
    expect(valueOf(after, { op: 'other' })).toBe(1);
  });
});
