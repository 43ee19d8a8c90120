// What a claim costs the memory backend as its claims reach and pass their bound (MAX_MEMORY_CLAIMS):
// every default Responses answer claims its id, so a long-running gateway lives past the bound, where
// the oldest claims leave at every save. Prints µs per claim over each window of claims; past the bound it
// should stay what it was before it (it once grew to 0.5 ms: the map walked over its deleted entries).
//   node --import tsx bench/micro/store-claims.ts [--n 1200000] [--window 100000]
import { MAX_MEMORY_CLAIMS, MemoryStateStore } from '../../src/state/memory-store.js';
import { parseFlags } from '../cli-flags.js';

const flags = parseFlags(process.argv.slice(2));
const n = Number(flags.get('n') ?? 2.4 * MAX_MEMORY_CLAIMS);
const window = Number(flags.get('window') ?? 100_000);
const store = new MemoryStateStore();
const ttlMs = 30 * 24 * 3600_000;
const perWindow: number[] = [];
let t0 = performance.now();
for (let i = 1; i <= n; i++) {
  // An id as the gateway makes it: `r:` + `resp_` + a per-process prefix + a counter.
  await store.claim('responses', ['r:' + 'resp_' + 'Q2x0bWxh' + i.toString(36).padStart(8, '0')], 'key-a', ttlMs);
  if (i % window === 0) {
    const t = performance.now();
    perWindow.push(((t - t0) * 1000) / window);
    console.log(`${String(i).padStart(9)} claims: ${perWindow.at(-1)!.toFixed(2)} µs per claim${i > MAX_MEMORY_CLAIMS ? ' (past the bound)' : ''}`);
    t0 = t;
  }
}
const before = perWindow.slice(0, Math.floor(MAX_MEMORY_CLAIMS / window));
const after = perWindow.slice(Math.ceil(MAX_MEMORY_CLAIMS / window));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? NaN;
console.log(`median µs per claim: before the bound ${median(before).toFixed(2)}, past it ${median(after).toFixed(2)} (${(median(after) / median(before)).toFixed(2)}×)`);
