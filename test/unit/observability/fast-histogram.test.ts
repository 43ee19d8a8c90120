import { AggregatorRegistry, Histogram, Registry, type Metric } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { EVENT_GAP_BUCKETS, FastHistogram } from '../../../src/observability/metrics.js';

const VALUES = [0, 0.0005, 0.001, 0.0011, 0.02, 0.025, 0.3, 7, 59.9, 60, 61, 1e6];

function pair() {
  const reference = new Registry();
  const fast = new Registry();
  const ref = new Histogram({ name: 'x_seconds', help: 'h', labelNames: ['a', 'b'] as const, buckets: [...EVENT_GAP_BUCKETS], registers: [reference] });
  const fh = new FastHistogram('x_seconds', 'h', ['a', 'b'], EVENT_GAP_BUCKETS);
  fast.registerMetric(fh as unknown as Metric);
  return { reference, fast, ref, fh };
}

describe('FastHistogram', () => {
  it('renders exactly what a prom-client Histogram renders for the same observations', async () => {
    const { reference, fast, ref, fh } = pair();
    const one = fh.child('messages', 'p1');
    const two = fh.child('responses', 'p "2"\n');
    for (const v of VALUES) {
      ref.labels('messages', 'p1').observe(v);
      one.observe(v);
    }
    ref.labels('responses', 'p "2"\n').observe(0.01);
    two.observe(0.01);
    expect(await fast.metrics()).toBe(await reference.metrics());
    const essentials = (json: Awaited<ReturnType<Registry['getMetricsAsJSON']>>) =>
      json.map((m) => ({
        name: m.name,
        type: m.type,
        values: (m.values as { labels: unknown; value: number; metricName?: string }[]).map((v) => ({ labels: v.labels, value: v.value, metricName: v.metricName })),
      }));
    expect(essentials(await fast.getMetricsAsJSON())).toEqual(essentials(await reference.getMetricsAsJSON()));
  });

  it('binds the same series for the same label values', () => {
    const { fh } = pair();
    expect(fh.child('a', 'b')).toBe(fh.child('a', 'b'));
    expect(() => fh.child('only-one')).toThrow(/expected 2 label values/);
  });

  it('sums across cluster workers like any histogram (AggregatorRegistry)', async () => {
    const a = pair();
    const b = pair();
    a.fh.child('messages', 'p').observe(0.02);
    b.fh.child('messages', 'p').observe(0.02);
    b.fh.child('messages', 'p').observe(2);
    const merged = AggregatorRegistry.aggregate([await a.fast.getMetricsAsJSON(), await b.fast.getMetricsAsJSON()]);
    const text = await merged.metrics();
    expect(text).toContain('x_seconds_bucket{le="0.025",a="messages",b="p"} 2');
    expect(text).toContain('x_seconds_bucket{le="+Inf",a="messages",b="p"} 3');
    expect(text).toContain('x_seconds_count{a="messages",b="p"} 3');
  });
});
