// CPU per request of the status page's windows (status/status-collector.ts) next to the rest of the
// observability tap: the same typical pass-through record through the observer with metrics and the
// request log line, without and with the status collector installed, plus the collector alone (one
// attempt, requestStarted, requestFinished). A micro-benchmark: prints figures, asserts nothing.
//
//   node --import tsx bench/micro/status-tap.ts [--rounds 5]
import { pino, type DestinationStream } from 'pino';
import { loggerOptions } from '../../src/observability/logger.js';
import { Observability } from '../../src/observability/observer.js';
import { RequestRecord } from '../../src/observability/request-record.js';
import { StatusCollector } from '../../src/status/status-collector.js';

const N = 200_000;
const roundsArg = process.argv.indexOf('--rounds');
const ROUNDS = roundsArg > 0 ? Number(process.argv[roundsArg + 1]) : 5;

function observability(tap: StatusCollector | undefined): Observability {
  const sink: DestinationStream = { write: () => undefined };
  const obs = new Observability({ metricsEnabled: true, logger: pino(loggerOptions('info'), sink), processMetrics: false });
  obs.setModelLabels(['claude-sonnet-4-5']);
  obs.setProviderLabels(['anthropic']);
  obs.setAccess(['ci'], ['platform'], []);
  obs.setTap(tap);
  return obs;
}

function record(i: number): RequestRecord {
  const t = 1_000 + i;
  const rec = new RequestRecord(`req_${i.toString(36)}`, 'messages', t);
  rec.requestedModel = 'claude-sonnet-4-5';
  rec.modelLabel = 'claude-sonnet-4-5';
  rec.provider = 'anthropic';
  rec.upstreamProtocol = 'messages';
  rec.upstreamModel = 'claude-sonnet-4-5-20250929';
  rec.lane = 'passthrough';
  rec.status = 200;
  rec.attempts = 1;
  rec.tUpstreamSent = t + 0.08;
  rec.tUpstreamEnd = t + 0.65;
  rec.tEnd = t + 0.7;
  rec.usage = { inputTokens: 600, outputTokens: 120, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };
  rec.keyName = 'ci';
  rec.teamName = 'platform';
  rec.costMicros = 3600;
  return rec;
}

const DEPLOYMENT = 'anthropic/claude-sonnet-4-5-20250929';

function nsPerRequest(step: (rec: RequestRecord) => void): number {
  const recs = Array.from({ length: 1_000 }, (_, i) => record(i));
  const run = (n: number) => {
    for (let i = 0; i < n; i++) step(recs[i % recs.length]!);
  };
  run(N / 5);
  const t0 = process.cpuUsage();
  run(N);
  const d = process.cpuUsage(t0);
  return ((d.user + d.system) * 1000) / N;
}

const without = observability(undefined);
const withTap = observability(new StatusCollector());
const alone = new StatusCollector();
const rows: Record<string, number[]> = { 'observer, status off': [], 'observer, status on': [], 'status collector alone': [] };
for (let r = 0; r < ROUNDS; r++) {
  rows['observer, status off']!.push(nsPerRequest((rec) => (without.recordAttempt('anthropic', 'success', DEPLOYMENT), without.requestStarted(rec), without.requestFinished(rec))));
  rows['observer, status on']!.push(nsPerRequest((rec) => (withTap.recordAttempt('anthropic', 'success', DEPLOYMENT), withTap.requestStarted(rec), withTap.requestFinished(rec))));
  rows['status collector alone']!.push(nsPerRequest((rec) => (alone.attemptEnded(DEPLOYMENT, 'success'), alone.requestStarted(rec), alone.requestFinished(rec, 0.7, -1))));
}
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
for (const [name, xs] of Object.entries(rows)) process.stdout.write(`${name.padEnd(24)} ${med(xs).toFixed(0).padStart(6)} ns per request (median of ${ROUNDS})\n`);
