// A metrics-producing target without the gateway: the real Observability class, fed RequestRecords
// the way the routes fill them (same call order, same fields), served on 127.0.0.1 by node:http.
// It proves the Prometheus side (exposition, scraping, every dashboard/alert query) independently of
// the HTTP stack; the gateway-backed variant lives in test/e2e/prometheus.test.ts.
import { createServer, type Server } from 'node:http';
import { pino } from 'pino';
import { Observability } from '../../../src/observability/observer.js';
import { RequestRecord, type FrontDoor, type Lane } from '../../../src/observability/request-record.js';
import type { Usage, Warning } from '../../../src/ir/types.js';

export interface MetricsTarget {
  obs: Observability;
  /** host:port */
  address: string;
  close(): Promise<void>;
}

export const HARNESS_MODELS = ['via-messages', 'via-responses', 'via-chat', 'demo'];
export const HARNESS_PROVIDERS = ['up-messages', 'up-responses', 'up-chat', 'demo'];
export const HARNESS_KEYS = ['alice', 'bob'];

export async function startMetricsTarget(): Promise<MetricsTarget> {
  const obs = new Observability({ metricsEnabled: true, logger: pino({ level: 'silent' }), processMetrics: true });
  obs.setModelLabels(HARNESS_MODELS);
  obs.setProviderLabels(HARNESS_PROVIDERS);
  // Two keys, one in a team with a budget (the budget gauges and the team-budget alert).
  obs.setAccess(HARNESS_KEYS, ['research'], [
    { scope: 'team', owner: 'research', usd: 100 },
    { scope: 'key', owner: 'alice', usd: 10 },
  ]);
  const server: Server = createServer((req, res) => {
    if (req.url !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    obs.metricsText().then(
      (text) => res.writeHead(200, { 'content-type': obs.metricsContentType }).end(text),
      (err) => res.writeHead(500).end(String(err)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    obs,
    address: `127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

interface Scenario {
  frontDoor: FrontDoor;
  model: string;
  modelLabel: string;
  provider: string;
  protocol: 'messages' | 'responses' | 'chat' | 'demo' | 'none';
  lane: Lane;
  stream: boolean;
  status: number;
  errorKind?: string;
  /** upstream attempts that failed first (kinds), before the final outcome. */
  failedAttempts?: string[];
  fallbackTo?: string;
  usage?: Usage;
  warnings?: Warning[];
  clientAborted?: boolean;
  /** Stop before routing (decode/auth/not-found failures). */
  stopAfterDecode?: boolean;
  events?: number;
}

const usage = (input: number, output: number, cacheRead = 0, cacheWrite = 0, reasoning = 0): Usage => ({
  inputTokens: input,
  outputTokens: output,
  cacheReadTokens: cacheRead,
  cacheWriteTokens: cacheWrite,
  reasoningTokens: reasoning,
});

/** Mixed traffic: both doors, pass-through, translation and local lanes, streams, failures. */
const SCENARIOS: Scenario[] = [
  { frontDoor: 'messages', model: 'via-messages', modelLabel: 'via-messages', provider: 'up-messages', protocol: 'messages', lane: 'passthrough', stream: true, status: 200, usage: usage(120, 40, 100, 0), events: 12 },
  { frontDoor: 'messages', model: 'via-messages', modelLabel: 'via-messages', provider: 'up-messages', protocol: 'messages', lane: 'passthrough', stream: false, status: 200, usage: usage(80, 20, 0, 60) },
  { frontDoor: 'responses', model: 'via-responses', modelLabel: 'via-responses', provider: 'up-responses', protocol: 'responses', lane: 'passthrough', stream: true, status: 200, usage: usage(200, 90, 0, 0, 30), events: 20 },
  { frontDoor: 'messages', model: 'via-chat', modelLabel: 'via-chat', provider: 'up-chat', protocol: 'chat', lane: 'translation', stream: true, status: 200, usage: usage(60, 30), events: 8, warnings: [{ field: 'tools.0.cache_control', message: 'dropped' }, { field: 'thinking.budget_tokens', message: 'approximated by effort' }] },
  { frontDoor: 'responses', model: 'via-messages', modelLabel: 'via-messages', provider: 'up-messages', protocol: 'messages', lane: 'translation', stream: false, status: 200, usage: usage(50, 25), warnings: [{ field: 'input.3.content.1.detail', message: 'image detail not supported' }] },
  { frontDoor: 'responses', model: 'via-chat', modelLabel: 'via-chat', provider: 'up-chat', protocol: 'chat', lane: 'translation', stream: true, status: 200, usage: usage(70, 35, 0, 0, 10), events: 10, failedAttempts: ['rate_limit'] },
  { frontDoor: 'messages', model: 'via-responses', modelLabel: 'via-responses', provider: 'up-responses', protocol: 'responses', lane: 'translation', stream: true, status: 200, usage: usage(90, 45), events: 9, failedAttempts: ['bad_gateway'], fallbackTo: 'up-responses' },
  { frontDoor: 'messages', model: 'demo', modelLabel: 'demo', provider: 'demo', protocol: 'demo', lane: 'local', stream: true, status: 200, usage: usage(10, 5), events: 4 },
  // Failures: upstream overloaded (after retries), in-stream error, caller mistakes, unknown model, caller left.
  { frontDoor: 'responses', model: 'via-chat', modelLabel: 'via-chat', provider: 'up-chat', protocol: 'chat', lane: 'translation', stream: false, status: 503, errorKind: 'overloaded', failedAttempts: ['overloaded'] },
  { frontDoor: 'messages', model: 'via-messages', modelLabel: 'via-messages', provider: 'up-messages', protocol: 'messages', lane: 'passthrough', stream: true, status: 200, errorKind: 'api_error', events: 3 },
  { frontDoor: 'messages', model: 'via-messages', modelLabel: 'via-messages', provider: 'none', protocol: 'none', lane: 'none', stream: false, status: 400, errorKind: 'invalid_request', stopAfterDecode: true },
  { frontDoor: 'responses', model: 'no-such-model-' + 'x', modelLabel: 'other', provider: 'none', protocol: 'none', lane: 'none', stream: false, status: 404, errorKind: 'not_found', stopAfterDecode: true },
  { frontDoor: 'responses', model: 'via-responses', modelLabel: 'via-responses', provider: 'up-responses', protocol: 'responses', lane: 'passthrough', stream: true, status: 200, clientAborted: true, events: 5 },
];

/**
 * One round of traffic through `obs`, with timestamps laid out as a real request would have them
 * (relative to now, in the past), so every histogram gets plausible values.
 */
export function driveSyntheticTraffic(obs: Observability, round: number): void {
  let i = 0;
  for (const s of SCENARIOS) {
    i++;
    const t0 = performance.now() - 5_000;
    const rec = new RequestRecord(`req_${round}_${i}`, s.frontDoor, t0);
    obs.requestStarted(rec);
    // Keys as handle-generation.ts stamps them: alice (team research) and bob (no team) in turn.
    rec.keyName = HARNESS_KEYS[i % 2]!;
    rec.teamName = i % 2 === 0 ? 'research' : '';
    if (i % 2 === 0) {
      obs.recordBudgetSpend('team', 'research', 10 + round);
      obs.recordBudgetSpend('key', 'alice', 1 + round / 10);
    }
    rec.stream = s.stream;
    rec.requestedModel = s.model;
    rec.tDecoded = t0 + 0.04 + (i % 3) * 0.01;
    let last = rec.tDecoded;
    if (!s.stopAfterDecode) {
      rec.modelLabel = s.modelLabel;
      rec.tRouted = rec.tDecoded + 0.005;
      rec.warnings = s.warnings ?? [];
      let t = rec.tRouted;
      for (const kind of s.failedAttempts ?? []) {
        rec.attempts++;
        if (s.fallbackTo) {
          rec.fallbacks++;
          obs.recordFallback(rec.modelLabel);
        } else {
          rec.retries++;
        }
        obs.recordAttempt(s.provider, kind);
        t += 150;
      }
      rec.attempts++;
      rec.provider = s.provider;
      rec.upstreamProtocol = s.protocol;
      rec.upstreamModel = s.model + '-upstream';
      rec.lane = s.lane;
      if (s.protocol !== 'demo') {
        rec.tUpstreamSent = t + 0.2;
        rec.tUpstreamHeaders = rec.tUpstreamSent + 180 + (i % 4) * 40;
        rec.tUpstreamFirstByte = rec.tUpstreamHeaders + 2;
      }
      let now = (rec.tUpstreamFirstByte || t) + 1;
      if (s.stream && s.status === 200) {
        obs.streamOpened(rec);
        for (let e = 0; e < (s.events ?? 0); e++) {
          now += 15 + (e % 5) * 10;
          if (e === 1) rec.tFirstToken = now;
          const start = now;
          rec.encodeMs += 0.01;
          obs.eventWritten(rec, start);
        }
      } else {
        now += 400;
        if (!s.errorKind) rec.encodeMs += 0.05;
      }
      rec.tUpstreamEnd = rec.tUpstreamSent !== 0 ? now - 0.5 : 0;
      last = now;
      rec.usage = s.usage;
      // As the price table would: $1 per million input tokens, $5 per million output tokens.
      if (s.usage) rec.costMicros = s.usage.inputTokens + 5 * s.usage.outputTokens;
      rec.finishReason = s.errorKind ? undefined : 'end_turn';
      rec.clientAborted = s.clientAborted ?? false;
      rec.upstreamAborted = s.clientAborted ?? false;
      obs.recordAttempt(s.provider, s.errorKind ?? 'success');
    }
    rec.status = s.status;
    rec.errorKind = s.errorKind;
    // A few hundred µs of gateway work after the upstream finished (or after decoding, for early failures).
    rec.tEnd = last + 0.3 + (i % 4) * 0.2;
    obs.requestFinished(rec);
  }
  // Circuit breakers: one deployment trips and recovers every round, the others stay closed.
  obs.recordCircuitState('up-messages/via-messages-upstream', 'closed');
  obs.recordCircuitState('up-chat', 'via-chat-upstream', 'open');
  obs.recordCircuitState('up-chat', 'via-chat-upstream', 'half-open');
  if (round % 2 === 1) obs.recordCircuitState('up-chat', 'via-chat-upstream', 'closed');
}

/** A stream left open (in flight, open stream) while Prometheus scrapes; finish it at the end. */
export function openLongStream(obs: Observability): () => void {
  const rec = new RequestRecord('req_long', 'responses', performance.now());
  obs.requestStarted(rec);
  rec.stream = true;
  rec.modelLabel = 'via-responses';
  rec.provider = 'up-responses';
  rec.upstreamProtocol = 'responses';
  rec.lane = 'passthrough';
  rec.status = 200;
  obs.streamOpened(rec);
  return () => {
    rec.tEnd = performance.now();
    obs.requestFinished(rec);
  };
}
