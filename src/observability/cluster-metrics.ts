// `--workers N` (node:cluster): each worker keeps its own registry; the primary answers scrapes by
// asking every worker over IPC and merging (prom-client's AggregatorRegistry). Counters and
// histograms are summed; gauges use their `aggregator` (sum, or max for circuit state).
import { AggregatorRegistry, type Registry } from 'prom-client';

/** In each worker, once: answer the primary's metric requests from this registry (not the global one). */
export function serveWorkerMetrics(registry: Registry): void {
  AggregatorRegistry.setRegistries([registry]);
  // Constructing one installs prom-client's IPC listener (idempotent).
  new AggregatorRegistry();
}

export interface ClusterMetrics {
  contentType: string;
  /** Every connected worker's metrics, merged; rejects after prom-client's 5 s IPC timeout. */
  metricsText(): Promise<string>;
}

/** In the primary: serve `metricsText()` on the metrics endpoint. */
export function clusterMetrics(): ClusterMetrics {
  const aggregator = new AggregatorRegistry();
  return {
    contentType: aggregator.contentType,
    metricsText: () => aggregator.clusterMetrics(),
  };
}
