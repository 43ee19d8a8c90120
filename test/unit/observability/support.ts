// Small helpers for the observability unit tests: a capturing pino destination and metric readers.
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { loggerOptions } from '../../../src/observability/logger.js';
import type { Observability } from '../../../src/observability/observer.js';

export interface CapturedLogger {
  logger: Logger;
  /** Every line written so far, parsed. */
  lines(): Record<string, unknown>[];
  raw(): string;
}

/** A logger with the gateway's options (redaction included) writing into memory, synchronously. */
export function captureLogger(level = 'info'): CapturedLogger {
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      text += chunk.toString('utf8');
      cb();
    },
  });
  const logger = pino(loggerOptions(level), sink);
  return {
    logger,
    raw: () => text,
    lines: () =>
      text
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

export interface Sample {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

/** The samples of one metric (histograms: _bucket/_sum/_count entries with metricName). */
export async function samples(obs: Observability, name: string): Promise<Sample[]> {
  const metric = obs.registry!.getSingleMetric(name);
  if (!metric) throw new Error(`no metric ${name}`);
  const data = (await metric.get()) as { values: Sample[] };
  return data.values;
}

/** The value of the one sample matching `labels` exactly on the given keys (undefined if none). */
export function valueOf(list: Sample[], labels: Record<string, string | number>, metricName?: string): number | undefined {
  const hit = list.filter(
    (s) => (metricName === undefined || s.metricName === metricName) && Object.entries(labels).every(([k, v]) => String(s.labels[k]) === String(v)),
  );
  if (hit.length > 1) throw new Error(`ambiguous labels ${JSON.stringify(labels)}: ${hit.length} samples`);
  return hit[0]?.value;
}

/** `_count` and `_sum` of one histogram series. */
export async function histogram(obs: Observability, name: string, labels: Record<string, string> = {}): Promise<{ count: number; sum: number } | undefined> {
  const list = await samples(obs, name);
  const count = valueOf(list, labels, name + '_count');
  const sum = valueOf(list, labels, name + '_sum');
  return count === undefined || sum === undefined ? undefined : { count, sum };
}
