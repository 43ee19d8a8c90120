// What a streamed text costs to hold while it grows delta by delta (the fold of a stored answer, the
// Responses encoder's text for its done events): N texts of D deltas each, built with `+=` alone or with
// keepFlat (src/ir/keep-flat.ts), then the heap they hold after a full GC, per text, and µs per append
// (the deltas come out of JSON.parse, as from an upstream frame, in both).
//   node --expose-gc --import tsx bench/micro/text-accumulation.ts [--n 1000] [--deltas 6000]
import { keepFlat } from '../../src/ir/keep-flat.js';
import { parseFlags } from '../cli-flags.js';

const flags = parseFlags(process.argv.slice(2));
const n = Number(flags.get('n') ?? 1000);
const deltas = Number(flags.get('deltas') ?? 6000);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const frames = Array.from({ length: 997 }, (_, i) => JSON.stringify(` tok${i.toString(36)}en word`));

function run(flat: boolean): { kib: number; usPerAppend: number; chars: number } {
  gc!();
  const before = process.memoryUsage().heapUsed;
  const texts = new Array<string>(n).fill('');
  const t0 = performance.now();
  for (let d = 1; d <= deltas; d++) {
    for (let i = 0; i < n; i++) {
      const next = texts[i]! + (JSON.parse(frames[(d + i) % frames.length]!) as string);
      texts[i] = flat ? keepFlat(next, d) : next;
    }
  }
  const t1 = performance.now();
  gc!();
  return { kib: (process.memoryUsage().heapUsed - before) / n / 1024, usPerAppend: ((t1 - t0) * 1000) / (n * deltas), chars: texts[0]!.length };
}

for (const flat of [false, true, false, true]) {
  const r = run(flat);
  console.log(`${flat ? 'keepFlat' : '+= only'}: ${r.kib.toFixed(1)} KiB held per text of ${(r.chars / 1000).toFixed(1)} K characters (${deltas} deltas), ${r.usPerAppend.toFixed(3)} µs per append`);
}
