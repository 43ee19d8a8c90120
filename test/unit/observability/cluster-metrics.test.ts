import cluster, { type Worker } from 'node:cluster';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { clusterMetrics } from '../../../src/observability/cluster-metrics.js';

const WORKER = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'cluster-worker.ts');

describe('cluster metrics aggregation (node:cluster + AggregatorRegistry)', () => {
  const workers: Worker[] = [];

  afterAll(async () => {
    await Promise.all(
      workers.map(
        (w) =>
          new Promise<void>((resolve) => {
            if (w.isDead()) return resolve();
            const t = setTimeout(() => {
              if (w.process.pid !== undefined && !w.isDead()) process.kill(w.process.pid, 'SIGKILL');
              resolve();
            }, 5_000);
            w.once('exit', () => {
              clearTimeout(t);
              resolve();
            });
            w.kill();
          }),
      ),
    );
  });

  it('merges every worker registry: counters and histograms summed, circuit state by max', async () => {
    cluster.setupPrimary({ exec: WORKER, execArgv: ['--import', 'tsx'], silent: false });
    const ready = (w: Worker) =>
      new Promise<void>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error('worker did not become ready within 20 s')), 20_000);
        w.on('message', (m: { type?: string }) => {
          if (m?.type === 'test:ready') {
            clearTimeout(t);
            resolve();
          }
        });
        w.once('exit', (code) => reject(new Error(`worker exited early (${code})`)));
      });
    const a = cluster.fork({ REQUESTS: '3', CIRCUIT: 'closed' });
    const b = cluster.fork({ REQUESTS: '4', CIRCUIT: 'open' });
    workers.push(a, b);
    await Promise.all([ready(a), ready(b)]);

    const primary = clusterMetrics();
    expect(primary.contentType).toMatch(/^text\/plain/);
    const text = await primary.metricsText();
    expect(text).toContain(
      'switchyard_requests_total{front_door="messages",model="fast",provider="none",upstream_protocol="none",lane="none",status_class="2xx",error_type="none",transport="http"} 7',
    );
    expect(text).toContain('switchyard_in_flight_requests{front_door="messages"} 2');
    expect(text).toContain('switchyard_stream_event_gap_seconds_count{front_door="messages",provider="none"} 7');
    expect(text).toContain('switchyard_deployment_circuit_state{provider="up",model="m"} 1');
  }, 40_000);
});
