// CPU per request log line of the default log destination (observability/logger.ts `bufferedStdout`):
// one ~600-byte line per call, 8 lines per event-loop turn (about what saturation gives), process CPU
// (the thread pool's writes included). stdout must go to a file; the figures go to stderr. A
// micro-benchmark, not a test. `--module PATH` measures another build's logger (e.g. a saved dist).
//
//   node --import tsx bench/micro/log-destination.ts [--module bench/results/dist-a/observability/logger.js] > /tmp/lines
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseFlags } from '../cli-flags.js';

const flags = parseFlags(process.argv.slice(2));
const mod = flags.get('module');
const { bufferedStdout } = (await import(mod ? pathToFileURL(path.resolve(mod)).href : '../../src/observability/logger.js')) as typeof import('../../src/observability/logger.js');
const dest = bufferedStdout();
const LINE =
  '{"level":30,"time":1764150000000,"pid":1234,"hostname":"host","requestId":"req_0123456789abcdef","frontDoor":"messages",' +
  '"model":"claude-x","modelLabel":"claude-x","provider":"anthropic","upstreamProtocol":"messages","upstreamModel":"claude-x",' +
  '"lane":"passthrough","stream":false,"status":200,"attempts":1,"retries":0,"fallbacks":0,"durationMs":1.234,"upstreamMs":0.9,' +
  '"overheadMs":0.3,"tokens":{"input":600,"output":200,"cacheRead":0,"cacheWrite":0,"reasoning":0},"finishReason":"end_turn",' +
  '"warningCount":0,"msg":"request finished","n":';
const N = Number(flags.get('n') ?? 100_000);
for (let r = 0; r < Number(flags.get('rounds') ?? 5); r++) {
  const t0 = process.cpuUsage();
  for (let i = 0; i < N; i++) {
    dest.write(LINE + i + '}\n');
    if ((i & 7) === 7) await new Promise((resolve) => setImmediate(resolve));
  }
  const t = process.cpuUsage(t0);
  process.stderr.write(`round ${r + 1}: ${((t.user + t.system) / N).toFixed(2)} µs CPU per line\n`);
}
