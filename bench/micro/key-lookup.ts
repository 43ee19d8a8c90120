// Authentication alone, without HTTP: http/auth.ts identify() (one sha256 of the presented key, the
// config keys' constant-time comparison, then the runtime keys' map) with 1 and with 10,000 runtime
// keys loaded, for the same key again and again and for a different key each call (a cold map slot
// and a caller built once per key). A micro-benchmark: prints ns/op (median of rounds), asserts only
// that every lookup finds its key.
//
//   node --import tsx bench/micro/key-lookup.ts [--rounds 5] [--keys 10000]
import type { IncomingHttpHeaders } from 'node:http';
import { RuntimeKeys } from '../../src/access/runtime-keys.js';
import type { AuthConfig, KeyConfig } from '../../src/config/types.js';
import { identify } from '../../src/http/auth.js';
import { MemoryStateStore } from '../../src/state/memory-store.js';
import { parseFlags } from '../cli-flags.js';
import { seedRuntimeKeys, type SeededKey } from '../lib/seed-keys.js';
import { median } from '../lib/stats.js';

const f = parseFlags(process.argv.slice(2));
const ROUNDS = Number(f.get('rounds') ?? 5);
const KEYS = Number(f.get('keys') ?? 10_000);
const N = 200_000;

const limits = { rpm: 1000, tpm: 1_000_000, concurrency: 10 };
const authKeys: KeyConfig[] = [{ name: 'cfg', key: 'sk-bench-config', limits }];
const auth: AuthConfig = { teams: new Map(), adminKeys: [{ name: 'ops', key: 'sk-bench-admin' }], open: false };
const config = { authKeys, auth };

async function loaded(count: number): Promise<{ runtime: RuntimeKeys; keys: SeededKey[] }> {
  const store = new MemoryStateStore();
  const keys = await seedRuntimeKeys(store, { count, fields: () => ({ limits }) });
  const runtime = new RuntimeKeys(store);
  await runtime.start();
  runtime.stop();
  return { runtime, keys };
}

function time(label: string, headers: IncomingHttpHeaders[], runtime: RuntimeKeys, expect: (i: number) => string): number {
  const perRound: number[] = [];
  for (let r = 0; r < ROUNDS + 1; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < N; i++) {
      const c = identify(config, headers[i % headers.length]!, undefined, runtime);
      if (c.name !== expect(i % headers.length)) throw new Error(`${label}: found ${c.name}`);
    }
    // The first round is warm-up (JIT).
    if (r > 0) perRound.push(Number(process.hrtime.bigint() - t0) / N);
  }
  const ns = median(perRound);
  process.stdout.write(`${label.padEnd(44)} ${ns.toFixed(0).padStart(6)} ns/op\n`);
  return ns;
}

const one = await loaded(1);
const many = await loaded(KEYS);
const h = (secret: string): IncomingHttpHeaders => ({ 'x-api-key': secret });
const cfgHeaders = [h('sk-bench-config')];
time('config key (1 runtime key loaded)', cfgHeaders, one.runtime, () => 'cfg');
time(`config key (${KEYS} runtime keys loaded)`, cfgHeaders, many.runtime, () => 'cfg');
const a = time('runtime key, same key (1 loaded)', [h(one.keys[0]!.secret)], one.runtime, () => one.keys[0]!.name);
const mid = many.keys[KEYS >> 1]!;
const b = time(`runtime key, same key (${KEYS} loaded)`, [h(mid.secret)], many.runtime, () => mid.name);
const all = many.keys.map((k) => h(k.secret));
const c = time(`runtime key, a different key each call (${KEYS})`, all, many.runtime, (i) => many.keys[i]!.name);
process.stdout.write(`ratio ${KEYS}:1 same key ${(b / a).toFixed(2)}×, different keys ${(c / a).toFixed(2)}×\n`);
