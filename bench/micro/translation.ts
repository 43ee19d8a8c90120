// The translation lane's own work, without HTTP: per lane (door → upstream), µs per request of
// decoding the caller's body and encoding the upstream request, µs per non-streamed answer (upstream
// JSON → IR result → the caller's body) and µs per 50-event stream (upstream SSE bytes → frames → IR
// events → the caller's SSE frames). Beside each, what JSON-FLOOR does for the same bytes (parse and
// re-serialise once), measured in the same round: the ratio is steadier than the µs on a shared machine.
// A micro-benchmark, not a test: it prints (issue 14, bench/profiles.md "Optimisations").
//
//   node --import tsx bench/micro/translation.ts [--lanes responses-chat,messages-chat] [--parts request,result,stream]
//     [--rounds 7] [--n 2000]
//   … --only ours|floor --rounds 1 --n N   # one side only, untimed use (valgrind --tool=callgrind, as
//       bench/README.md describes: instructions per op = (I(N2) − I(N1)) / (N2 − N1), steady under load)
import { StringDecoder } from 'node:string_decoder';
import { messagesCodec } from '../../src/codecs/anthropic-messages/index.js';
import { responsesCodec } from '../../src/codecs/openai-responses/index.js';
import type { EncodeContext, InboundCodec } from '../../src/codecs/types.js';
import { driverFor } from '../../src/drivers/registry.js';
import { SseParser } from '../../src/drivers/sse-parser.js';
import type { DriverTarget } from '../../src/drivers/types.js';
import { EventFolder } from '../../src/ir/fold-events.js';
import { resultToEvents } from '../../src/ir/result-to-events.js';
import type { IrEvent } from '../../src/ir/types.js';
import { parseFlags } from '../cli-flags.js';
import { LANES, UPSTREAM_MODEL } from '../lib/lanes.js';
import { requestBody } from '../request-bodies.js';
import { prepareReply, stampId } from '../upstream-replies.js';

const flags = parseFlags(process.argv.slice(2));
const rounds = Number(flags.get('rounds') ?? 7);
const n = Number(flags.get('n') ?? 2000);
const wanted = flags.get('lanes')?.split(',');
const lanes = LANES.filter((l) => l.kind === 'translation' && (!wanted || wanted.includes(l.id)));
const only = flags.get('only');
const parts = (flags.get('parts')?.split(',') ?? ['request', 'result', 'stream']) as ('request' | 'result' | 'stream')[];

const target: DriverTarget = {
  model: 'upstream-model',
  apiKey: 'sk-bench',
  headers: {},
  options: { defaultMaxTokens: 32000, maxTokensField: 'max_tokens', echoReasoningContent: false, systemRole: 'system' },
};

let sink = 0;
/** Frames and bodies go through Buffer.byteLength as a socket write would (it flattens V8's ropes). */
const consume = (s: string): void => {
  sink += Buffer.byteLength(s);
};

function codecOf(door: string): InboundCodec {
  return door === 'messages' ? messagesCodec : responsesCodec;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1]!;
}

function usPerOp(fn: () => void): number {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) fn();
  return ((performance.now() - t0) * 1000) / n;
}

for (const lane of lanes) {
  const codec = codecOf(lane.door);
  const driver = driverFor(lane.upstream);
  const callerText = requestBody(lane.door, 'bench-alias', true);
  const decodeOnce = () => codec.decodeRequest(JSON.parse(callerText), []);
  const ir = decodeOnce();
  const ctx: EncodeContext = { request: ir, responseId: codec.responseIdPrefix + '0123456789abcdef01234567', createdAt: 4_000_000_000, warnings: [] };
  const plain = prepareReply(lane.upstream, UPSTREAM_MODEL[lane.upstream], false, 50);
  const plainText = stampId(plain, '000000000000000000000001')[0]!.toString('utf8');
  const streamed = stampId(prepareReply(lane.upstream, UPSTREAM_MODEL[lane.upstream], true, 50), '000000000000000000000001');

  const ours = {
    request: () => consume(driver.encodeRequest(decodeOnce(), target, true, []).body),
    result: () => {
      const folder = new EventFolder();
      resultToEvents(driver.decodeResult(JSON.parse(plainText), ir), (ev: IrEvent) => folder.push(ev));
      consume(codec.encodeResult(folder.result(), ctx));
    },
    stream: () => {
      const encoder = codec.createStreamEncoder(ctx, consume);
      const decoder = driver.createEventDecoder(ir, (ev) => encoder.event(ev));
      const parser = new SseParser((f) => decoder.frame(f));
      // As the lane reads the upstream body (setEncoding: the stream's StringDecoder).
      const text = new StringDecoder('utf8');
      for (const chunk of streamed) parser.push(text.write(chunk));
      parser.push(text.end());
      parser.end();
      decoder.end();
    },
  };
  // JSON-FLOOR's work on the same bytes: parse once, re-serialise (each data line of a stream).
  const floor = {
    request: () => consume(JSON.stringify(JSON.parse(callerText))),
    result: () => consume(JSON.stringify(JSON.parse(plainText))),
    stream: () => {
      for (const chunk of streamed) {
        const text = chunk.toString('utf8');
        const at = text.indexOf('data: ');
        const end = text.indexOf('\n', at);
        const data = text.slice(at + 6, end);
        consume(data === '[DONE]' ? text : text.slice(0, at + 6) + JSON.stringify(JSON.parse(data)) + text.slice(end));
      }
    },
  };
  const rows: string[] = [];
  for (const part of parts) {
    const a: number[] = [];
    const b: number[] = [];
    for (let r = 0; r < rounds; r++) {
      a.push(only === 'floor' ? 1 : usPerOp(ours[part]));
      b.push(only === 'ours' ? 1 : usPerOp(floor[part]));
    }
    const ratio = median(a.map((x, i) => x / b[i]!));
    rows.push(`| ${lane.label} | ${part} | ${median(a).toFixed(2)} | ${median(b).toFixed(2)} | ${ratio.toFixed(2)}× |`);
  }
  console.log(rows.join('\n'));
}
if (sink === 0) console.log('(nothing written)');
