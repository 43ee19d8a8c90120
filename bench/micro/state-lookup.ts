// What one `previous_response_id` lookup costs on each backend, without HTTP around it: a stored
// two-turn conversation (≈600-token corpus) read again and again through ResponsesRepository's
// loadConversation (what the request path calls), each read right after a fresh save of another one.
//   node --import tsx bench/micro/state-lookup.ts [--redis redis://127.0.0.1:6379]
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ResponsesRepository } from '../../src/responses-store/responses-repository.js';
import type { AnswerRecord } from '../../src/responses-store/stored-response.js';
import { FileStateStore } from '../../src/state/file-store.js';
import { MemoryStateStore } from '../../src/state/memory-store.js';
import { RedisStateStore } from '../../src/state/redis-store.js';
import type { StateStore } from '../../src/state/types.js';
import { ANSWER_TEXT, USER_TURN_1, USER_TURN_2 } from '../corpus.js';
import { summarize } from '../lib/stats.js';

const answer = [{ type: 'text' as const, text: ANSWER_TEXT }];
// The second turn of a conversation: the first (stored as the earlier turns), this request, its answer.
const record: AnswerRecord = {
  id: 'resp_bench',
  owner: 'anonymous',
  createdAt: 1_763_700_000,
  responseJson: JSON.stringify({ id: 'resp_bench', object: 'response', status: 'completed', output: [{ id: 'msg_bench', type: 'message', role: 'assistant', content: [{ type: 'output_text', text: ANSWER_TEXT, annotations: [] }] }] }),
  outputItemIds: ['msg_bench'],
  requestJson: JSON.stringify({ model: 'm', previous_response_id: 'resp_before', input: USER_TURN_2 }),
  previous: [
    { role: 'user', parts: [{ type: 'text', text: USER_TURN_1 }] },
    { role: 'assistant', parts: [{ type: 'text', text: ANSWER_TEXT }] },
  ],
  answer,
  turns: [
    { role: 'user', parts: [{ type: 'text', text: USER_TURN_1 }] },
    { role: 'assistant', parts: [{ type: 'text', text: ANSWER_TEXT }] },
    { role: 'user', parts: [{ type: 'text', text: USER_TURN_2 }] },
    { role: 'assistant', parts: answer },
  ],
};

async function measure(name: string, store: StateStore, n = 3000): Promise<void> {
  const repo = new ResponsesRepository(store, { ttlMs: 60_000 });
  await repo.save(record);
  for (let i = 0; i < 300; i++) await repo.loadConversation(record.id, record.owner);
  const loads: number[] = [];
  const saves: number[] = [];
  for (let i = 0; i < n; i++) {
    // As in the gateway: the answer before was saved a moment ago, then its continuation is read.
    const id = `resp_bench_${i}`;
    const t1 = process.hrtime.bigint();
    await repo.save({ ...record, id });
    saves.push(Number(process.hrtime.bigint() - t1) / 1000);
    const t0 = process.hrtime.bigint();
    const r = await repo.loadConversation(id, record.owner);
    loads.push(Number(process.hrtime.bigint() - t0) / 1000);
    if (!r) throw new Error('lost the record');
  }
  const l = summarize(loads);
  const s = summarize(saves);
  process.stdout.write(`${name.padEnd(7)} load p50 ${l.p50.toFixed(0)} µs p99 ${l.p99.toFixed(0)} µs   save p50 ${s.p50.toFixed(0)} µs p99 ${s.p99.toFixed(0)} µs\n`);
  await store.close();
}

const redisAt = process.argv.indexOf('--redis');
const dir = mkdtempSync(path.join(os.tmpdir(), 'switchyard-lookup-'));
try {
  await measure('memory', new MemoryStateStore());
  await measure('file', new FileStateStore({ path: dir }));
  if (redisAt > 0) await measure('redis', new RedisStateStore({ url: process.argv[redisAt + 1]!, keyPrefix: 'lookup-bench:', opTimeoutMs: 1500 }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
