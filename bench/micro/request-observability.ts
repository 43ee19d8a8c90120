// CPU per request of the observability tap alone: requestStarted + requestFinished (metrics and the
// request log line) on a typical pass-through record, and the per-event cost of eventWritten on a
// stream. A micro-benchmark, not a test: it prints µs per request / ns per event and asserts nothing.
// The log goes to a sink that drops each line: the destination's own cost (sonic-boom's buffering and
// the write syscalls) depends on event-loop turns a tight loop does not have; the profile shows it.
//
//   node --import tsx bench/micro/request-observability.ts [--rounds 5]
import { pino, type DestinationStream } from 'pino';
import { loggerOptions } from '../../src/observability/logger.js';
import { Observability } from '../../src/observability/observer.js';
import { RequestRecord } from '../../src/observability/request-record.js';

const N = 100_000;
const EVENTS = 2_000_000;
const roundsArg = process.argv.indexOf('--rounds');
const ROUNDS = roundsArg > 0 ? Number(process.argv[roundsArg + 1]) : 5;

function observability(metricsEnabled: boolean, level: string): Observability {
  let bytes = 0;
  const sink: DestinationStream = { write: (line: string) => void (bytes += line.length) };
  const obs = new Observability({ metricsEnabled, logger: pino(loggerOptions(level), sink), processMetrics: false });
  obs.setModelLabels(['claude-sonnet-4-5', 'gpt-4.1']);
  obs.setProviderLabels(['anthropic', 'openai']);
  obs.setAccess(['ci', 'alice'], ['platform'], []);
  return obs;
}

/** A non-streamed messages→messages pass-through answer, as the bench's requests produce. */
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
  rec.tDecoded = t + 0.05;
  rec.tRouted = t + 0.06;
  rec.tUpstreamSent = t + 0.08;
  rec.tUpstreamHeaders = t + 0.6;
  rec.tUpstreamFirstByte = t + 0.61;
  rec.tUpstreamEnd = t + 0.65;
  rec.tEnd = t + 0.7;
  rec.usage = { inputTokens: 600, outputTokens: 120, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };
  rec.finishReason = 'end_turn';
  rec.keyName = 'ci';
  rec.teamName = 'platform';
  rec.costMicros = 3600;
  return rec;
}

function usPerRequest(obs: Observability): number {
  const recs = Array.from({ length: 1_000 }, (_, i) => record(i));
  const run = (n: number) => {
    for (let i = 0; i < n; i++) {
      const rec = recs[i % recs.length]!;
      obs.requestStarted(rec);
      obs.requestFinished(rec);
    }
  };
  run(N / 5);
  const t0 = process.cpuUsage();
  run(N);
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / N;
}

function nsPerEvent(obs: Observability): number {
  const rec = record(0);
  rec.stream = true;
  obs.requestStarted(rec);
  obs.streamOpened(rec);
  let now = 2_000;
  for (let i = 0; i < EVENTS / 10; i++) obs.eventWritten(rec, (now += 0.02));
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < EVENTS; i++) obs.eventWritten(rec, (now += 0.02));
  return Number(process.hrtime.bigint() - t0) / EVENTS;
}

const variants: [string, Observability][] = [
  ['metrics on, log info (default)', observability(true, 'info')],
  ['metrics on, log warn', observability(true, 'warn')],
  ['metrics off, log info', observability(false, 'info')],
  ['metrics off, log warn', observability(false, 'warn')],
];
for (let round = 1; round <= ROUNDS; round++) {
  const parts = variants.map(([name, obs]) => `${name} ${usPerRequest(obs).toFixed(2)} µs`);
  console.log(`round ${round}: ${parts.join(' | ')} | eventWritten ${nsPerEvent(variants[0]![1]).toFixed(1)} ns/event`);
}
