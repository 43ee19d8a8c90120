// CPU µs per stored answer on the memory backend (the default), without HTTP: what the Responses door
// adds after the caller's last byte when `store` is unset. A realistic record (≈600-token conversation,
// ≈200-token answer, the request body and the response as texts), encoded and saved with ResponsesRepository.save into a store with the default byte
// bound, one save per event-loop turn as in the gateway; CPU from process.cpuUsage (all threads, GC's
// helpers included). `--only encode|save` runs one part; `--n N` the number of saves. `--response-text`:
// the answer stored as a translated one was before version 4 (the response's text beside the parts)
// instead of as one now (the parts, finish and usage: the response rendered again when read).
//   node --import tsx bench/micro/store-save.ts [--n 20000] [--rounds 5] [--response-text]
import { setImmediate as turn } from 'node:timers/promises';
import { ResponsesRepository } from '../../src/responses-store/responses-repository.js';
import { encodeAnswerRecord, type AnswerRecord } from '../../src/responses-store/stored-response.js';
import { MemoryStateStore } from '../../src/state/memory-store.js';
import { ANSWER_TEXT, ASSISTANT_TURN_1, SYSTEM_PROMPT, USER_TURN_1, USER_TURN_2 } from '../corpus.js';
import { parseFlags } from '../cli-flags.js';

const flags = parseFlags(process.argv.slice(2));
const n = Number(flags.get('n') ?? 20_000);
const rounds = Number(flags.get('rounds') ?? 5);
const only = flags.get('only');

function record(i: number): AnswerRecord {
  const id = `resp_${i.toString(16).padStart(24, '0')}`;
  const output = [{ id: `msg_${i.toString(16).padStart(24, '0')}`, type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: ANSWER_TEXT, annotations: [], logprobs: [] }] }];
  const response = { id, object: 'response', created_at: 1_763_700_000, status: 'completed', model: 'm-messages', instructions: SYSTEM_PROMPT, output, usage: { input_tokens: 600, output_tokens: 200, total_tokens: 800 }, store: true };
  // The request as the bench sends it (bench/request-bodies.ts: a two-turn conversation with its system prompt).
  const request = {
    model: 'm-messages',
    instructions: SYSTEM_PROMPT,
    input: [
      { role: 'user', content: USER_TURN_1 },
      { role: 'assistant', content: ASSISTANT_TURN_1 },
      { role: 'user', content: USER_TURN_2 },
    ],
    max_output_tokens: 1024,
  };
  const answer = [{ type: 'text' as const, text: ANSWER_TEXT }];
  const usage = { inputTokens: 600, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 200, reasoningTokens: 0 };
  return {
    id,
    owner: 'anonymous',
    createdAt: 1_763_700_000,
    ...(flags.has('response-text') ? { responseJson: JSON.stringify(response) } : { rendered: { finish: { reason: 'end_turn' as const, raw: 'end_turn' }, usage, completedAt: 1_763_700_001 } }),
    outputItemIds: output.map((o) => o.id),
    requestJson: JSON.stringify(request),
    previous: [],
    answer,
    turns: [
      { role: 'user', parts: [{ type: 'text', text: USER_TURN_1 }] },
      { role: 'assistant', parts: [{ type: 'text', text: ASSISTANT_TURN_1 }] },
      { role: 'user', parts: [{ type: 'text', text: USER_TURN_2 }] },
      { role: 'assistant', parts: answer },
    ],
    producer: { provider: 'anthropic', model: 'claude-bench', protocol: 'anthropic-messages' },
  };
}

const records = Array.from({ length: 256 }, (_, i) => record(i));
const repo = new ResponsesRepository(new MemoryStateStore({ namespaces: [{ name: 'responses', maxBytes: 64 * 1024 * 1024, ownerMaxBytes: 64 * 1024 * 1024 }] }), { ttlMs: 3_600_000, ...(flags.has('claim-ttl-ms') ? { claimTtlMs: Number(flags.get('claim-ttl-ms')) } : {}) });
let seq = 0;

async function one(): Promise<void> {
  const r = records[seq++ & 255]!;
  const rec = { ...r, id: r.id + seq };
  if (only === 'encode') encodeAnswerRecord(rec);
  else await repo.save(rec);
  await turn();
}

const per: number[] = [];
for (let round = 0; round <= rounds; round++) {
  const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) await one();
  const c = process.cpuUsage(c0);
  if (round > 0) per.push((c.user + c.system) / n); // round 0 warms up (and fills the store)
}
per.sort((a, b) => a - b);
process.stdout.write(`${only ?? 'save'}: ${per[per.length >> 1]!.toFixed(1)} µs CPU per stored answer (median of ${rounds} rounds of ${n}; min ${per[0]!.toFixed(1)}, max ${per[per.length - 1]!.toFixed(1)})\n`);
