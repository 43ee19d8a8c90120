// What the memory backend holds for its stored answers, without HTTP: N realistic records saved with
// ResponsesRepository.save (as bench/micro/store-save.ts; the output item's id is the upstream's, as on
// the pass-through lanes, so each save also writes an item entry and two claims) into a store with the
// default bound, then two full GCs, and what the process holds beyond the same reading before the saves:
// heap used, external, RSS, and the store's own figures (documents' bytes, the arena's held bytes, claims).
// Run with --expose-gc:
//   node --expose-gc --import tsx bench/micro/store-memory.ts [--n 100000] [--max-bytes 67108864]
import { setImmediate as turn } from 'node:timers/promises';
import { readFileSync } from 'node:fs';
import { ResponsesRepository } from '../../src/responses-store/responses-repository.js';
import { type AnswerRecord } from '../../src/responses-store/stored-response.js';
import { MemoryStateStore } from '../../src/state/memory-store.js';
import { ANSWER_TEXT, ASSISTANT_TURN_1, SYSTEM_PROMPT, USER_TURN_1, USER_TURN_2 } from '../corpus.js';
import { parseFlags } from '../cli-flags.js';

const flags = parseFlags(process.argv.slice(2));
const n = Number(flags.get('n') ?? 100_000);
const maxBytes = Number(flags.get('max-bytes') ?? 64 * 1024 * 1024);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

// Ids as the gateway makes them (src/http/ids.ts: kind + a per-process prefix + a counter, concatenated);
// the output item's as JSON.parse gives an upstream's (one flat string).
const PREFIX = 'Q2x0bWxhYmVs';
const newId = (kind: string, i: number) => kind + PREFIX + i.toString(36).padStart(6, '0');
function record(i: number): AnswerRecord {
  const id = newId('resp_', i);
  const output = [{ id: Buffer.from(`msg_${(i * 7).toString(16).padStart(24, '0')}`).toString(), type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: ANSWER_TEXT, annotations: [], logprobs: [] }] }];
  const response = { id, object: 'response', created_at: 1_763_700_000, status: 'completed', model: 'm-messages', instructions: SYSTEM_PROMPT, output, usage: { input_tokens: 600, output_tokens: 200, total_tokens: 800 }, store: true };
  const request = { model: 'm-messages', instructions: SYSTEM_PROMPT, input: [{ role: 'user', content: USER_TURN_1 }, { role: 'assistant', content: ASSISTANT_TURN_1 }, { role: 'user', content: USER_TURN_2 }], max_output_tokens: 1024 };
  return {
    id,
    owner: 'anonymous',
    createdAt: 1_763_700_000,
    responseJson: JSON.stringify(response),
    outputItemIds: output.map((o) => o.id),
    requestJson: JSON.stringify(request),
    previous: [],
    answer: [],
    turns: [],
    producer: { provider: 'openai', model: 'bench', protocol: 'openai-responses' },
  };
}

const MiB = 1024 * 1024;
function reading() {
  gc!();
  gc!();
  const m = process.memoryUsage();
  const hwm = Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) / 1024;
  return { heap: m.heapUsed / MiB, heapTotal: m.heapTotal / MiB, external: m.external / MiB, rss: m.rss / MiB, hwm };
}

const store = new MemoryStateStore({ namespaces: [{ name: 'responses', maxBytes, ownerMaxBytes: maxBytes }] });
const repo = new ResponsesRepository(store, { ttlMs: 3_600_000 });
const before = reading();
let peakRss = 0;
let peakExternal = 0;
let peakHeap = 0;
for (let i = 0; i < n; i++) {
  await repo.save(record(i));
  if ((i & 255) === 0) {
    await turn();
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss / MiB);
    peakExternal = Math.max(peakExternal, m.external / MiB);
    peakHeap = Math.max(peakHeap, m.heapTotal / MiB);
  }
}
const after = reading();
const s = store as unknown as { namespaces: Map<string, { docs: Map<string, unknown>; bytes: number }>; claims: Map<string, Map<string, unknown>> };
const space = s.namespaces.get('responses')!;
const f = (x: number) => x.toFixed(1);
console.log(
  `${n} saves, bound ${f(maxBytes / MiB)} MiB: ${space.docs.size} documents, ${f(space.bytes / MiB)} MiB counted; arena held ${f(store.heldDocumentBytes() / MiB)} MiB; ` +
    `${s.claims.get('responses')?.size ?? 0} claims\n` +
    `beyond the empty store, after full GCs: heap +${f(after.heap - before.heap)} MiB (total +${f(after.heapTotal - before.heapTotal)}), external +${f(after.external - before.external)} MiB, RSS +${f(after.rss - before.rss)} MiB; ` +
    `peak while saving: RSS ${f(peakRss)} MiB (before ${f(before.rss)}, VmHWM ${f(after.hwm)}), external ${f(peakExternal)}, heap total ${f(peakHeap)}`,
);
