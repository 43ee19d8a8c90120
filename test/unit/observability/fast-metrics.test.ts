// FastCounter and FastGauge against prom-client's Counter and Gauge fed the same operations: the same
// exposition text, the same JSON (cluster aggregation), and numbers prom-client would throw on are
// ignored instead of failing the request that reported them.
import { AggregatorRegistry, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { FastCounter, FastGauge, FastHistogram } from '../../../src/observability/fast-metrics.js';
import { CODEC_BUCKETS } from '../../../src/observability/metrics.js';

function registries() {
  const reference = new Registry();
  const fast = new Registry();
  return { reference, fast, registers: [reference] };
}

describe('FastCounter and FastGauge', () => {
  it('render exactly what prom-client renders for the same operations', async () => {
    const { reference, fast, registers } = registries();
    const refCounter = new Counter({ name: 'c_total', help: 'a "counter"\nwith help', labelNames: ['a', 'b'] as const, registers });
    const refGauge = new Gauge({ name: 'g', help: 'a gauge', labelNames: ['door'] as const, registers });
    new Counter({ name: 'bare_total', help: 'no labels', registers });
    const counter = new FastCounter('c_total', 'a "counter"\nwith help', ['a', 'b']).register(fast);
    const gauge = new FastGauge('g', 'a gauge', ['door']).register(fast);
    new FastCounter('bare_total', 'no labels', []).register(fast);

    const ops: [string, string, number][] = [
      ['x', 'y', 1],
      ['x', 'y', 2.5],
      ['q"uote\\', 'line\nbreak', 3],
      ['x', 'z', 0],
      ['x', 'y', 1e-9],
    ];
    for (const [a, b, v] of ops) {
      refCounter.labels(a, b).inc(v);
      counter.child(a, b).inc(v);
    }
    for (const door of ['messages', 'responses', 'messages', 'messages']) {
      refGauge.labels(door).inc();
      gauge.child(door).inc();
    }
    refGauge.labels('responses').dec();
    gauge.child('responses').dec();
    refGauge.labels('messages').dec();
    gauge.child('messages').dec();

    expect(await fast.metrics()).toBe(await reference.metrics());
    expect(await fast.metrics()).toContain('bare_total 0');
    const json = async (r: Registry) =>
      (await r.getMetricsAsJSON()).map((m) => ({ name: m.name, type: m.type, aggregator: m.aggregator, values: m.values.map((v) => ({ labels: v.labels, value: v.value })) }));
    expect(await json(fast)).toEqual(await json(reference));
  });

  it('binds one series per label values and checks the count of values', () => {
    const c = new FastCounter('c_total', 'h', ['a', 'b']);
    expect(c.child('1', '2')).toBe(c.child('1', '2'));
    expect(c.child('1', '2')).not.toBe(c.child('12', ''));
    expect(() => c.child('1')).toThrow(/expected 2 label values/);
  });

  it('ignores amounts prom-client throws on (NaN, infinite; negative for a counter) instead of failing', async () => {
    const fast = new Registry();
    const c = new FastCounter('c_total', 'h', ['a']).register(fast);
    const h = new FastHistogram('h_seconds', 'h', ['a'], CODEC_BUCKETS).register(fast);
    for (const bad of [NaN, Infinity, -1, -Infinity]) expect(() => c.child('x').inc(bad)).not.toThrow();
    // A negative duration is a number prom-client accepts too; only non-finite ones are dropped.
    for (const bad of [NaN, Infinity, -Infinity]) expect(() => h.child('x').observe(bad)).not.toThrow();
    c.child('x').inc(2);
    h.child('x').observe(0.001);
    const text = await fast.metrics();
    expect(text).toContain('c_total{a="x"} 2\n');
    expect(text).toContain('h_seconds_count{a="x"} 1\n');
    expect(text).toContain('h_seconds_sum{a="x"} 0.001\n');
  });

  it('a histogram without labels shows its zero series from the start, as prom-client does', async () => {
    const { reference, fast, registers } = registries();
    new Histogram({ name: 'r_seconds', help: 'h', buckets: [...CODEC_BUCKETS], registers });
    new FastHistogram('r_seconds', 'h', [], CODEC_BUCKETS).register(fast);
    expect(await fast.metrics()).toBe(await reference.metrics());
    expect(await fast.metrics()).toContain('r_seconds_count 0');
  });

  it('sums across cluster workers (AggregatorRegistry), gauges included', async () => {
    const worker = async (n: number) => {
      const r = new Registry();
      const c = new FastCounter('c_total', 'h', ['a']).register(r);
      const g = new FastGauge('g', 'h', ['door']).register(r);
      for (let i = 0; i < n; i++) c.child('x').inc();
      g.child('messages').inc();
      return r.getMetricsAsJSON();
    };
    const merged = AggregatorRegistry.aggregate([await worker(2), await worker(3)]);
    const text = await merged.metrics();
    expect(text).toContain('c_total{a="x"} 5');
    expect(text).toContain('g{door="messages"} 2');
  });
});
