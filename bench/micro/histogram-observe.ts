// Per-observation cost of the per-event histogram: prom-client's labelled child vs our FastHistogram.
// A micro-benchmark, not a test: it prints nanoseconds per observe() and asserts nothing.
//
//   node --import tsx bench/micro/histogram-observe.ts
import { Histogram, Registry } from 'prom-client';
import { EVENT_GAP_BUCKETS, FastHistogram } from '../../src/observability/metrics.js';

const N = 2_000_000;
const WARM = 200_000;

function nsPerCall(fn: (v: number) => void): number {
  for (let i = 0; i < WARM; i++) fn((i % 100) / 1000);
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < N; i++) fn((i % 100) / 1000);
  return Number(process.hrtime.bigint() - t0) / N;
}

const reference = new Histogram({
  name: 'x_seconds',
  help: 'h',
  labelNames: ['a', 'b'] as const,
  buckets: [...EVENT_GAP_BUCKETS],
  registers: [new Registry()],
});
const fast = new FastHistogram('x_seconds', 'h', ['a', 'b'], EVENT_GAP_BUCKETS);
const refChild = reference.labels('messages', 'p');
const fastChild = fast.child('messages', 'p');

for (let round = 1; round <= 3; round++) {
  const promNs = nsPerCall((v) => refChild.observe(v));
  const fastNs = nsPerCall((v) => fastChild.observe(v));
  console.log(`round ${round}: prom-client child ${promNs.toFixed(1)} ns/observe, FastHistogram ${fastNs.toFixed(1)} ns/observe`);
}
