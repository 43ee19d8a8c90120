// The pass-through relays' frame splitter (drivers/sse-splitter.ts) alone on the bench's 50-event
// upstream streams (bench/upstream-replies.ts), all frames in one chunk as the fake upstream sends
// them, into a sink that drops them: µs per stream. A micro-benchmark, not a test.
//
//   node --import tsx bench/micro/sse-split.ts [--protocol messages|responses] [--rounds 5] [--n 20000]
import { SseSplitter } from '../../src/drivers/sse-splitter.js';
import { parseFlags } from '../cli-flags.js';
import { prepareReply, stampId } from '../upstream-replies.js';

const flags = parseFlags(process.argv.slice(2));
const protocol = (flags.get('protocol') ?? 'messages') as 'messages' | 'responses';
const bytes = Buffer.concat(stampId(prepareReply(protocol, 'm', true, 50), 'x'.repeat(24)));
let frames = 0;
const sink = { raw: () => void frames++, parsed: () => void frames++, flush: () => {} };
const n = Number(flags.get('n') ?? 20_000);
for (let r = 0; r < Number(flags.get('rounds') ?? 5); r++) {
  frames = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const splitter = new SseSplitter(sink);
    splitter.push(bytes);
    splitter.end();
  }
  const us = Number(process.hrtime.bigint() - t0) / 1000 / n;
  process.stdout.write(`round ${r + 1}: ${protocol}, ${bytes.length} B, ${frames / n} frames: ${us.toFixed(2)} µs per stream\n`);
}
