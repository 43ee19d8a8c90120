// Static checks of grafana/: every query reads metrics that src/observability/metrics.ts defines,
// every gateway metric is on a dashboard, and provisioning wires the fixed datasource uid.
// (test/e2e/prometheus.test.ts evaluates the same queries against a live Prometheus.)
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createMetrics } from '../../../src/observability/metrics.js';
import { alertRules, DASHBOARD_DIR, dashboardQueries, metricNamesIn, readDashboard, REPO_ROOT } from '../../support/prometheus/promql-sources.js';

const DATASOURCE_UID = 'switchyard-prometheus';
const files = readdirSync(DASHBOARD_DIR).filter((f) => f.endsWith('.json'));

const gatewayMetrics = createMetrics({ processMetrics: false }).registry.getMetricsAsArray().map((m) => m.name);
const allMetrics = new Set(createMetrics({ processMetrics: true }).registry.getMetricsAsArray().map((m) => m.name));

interface Panel {
  id: number;
  type: string;
  title: string;
  datasource?: { type: string; uid: string };
  targets?: { refId: string; expr: string; datasource?: { uid: string } }[];
  panels?: Panel[];
}

function panelsOf(file: string): Panel[] {
  const out: Panel[] = [];
  const walk = (ps: Panel[] | undefined) => {
    for (const p of ps ?? []) {
      out.push(p);
      walk(p.panels);
    }
  };
  walk(readDashboard(file).panels as Panel[]);
  return out;
}

describe('grafana dashboards', () => {
  it('exist', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it.each(files)('%s: every query reads only metrics defined in src/observability/metrics.ts', (file) => {
    for (const q of dashboardQueries(file)) {
      const names = metricNamesIn(q.expr);
      expect(names.length, `${q.where}: no switchyard_ metric in ${q.expr}`).toBeGreaterThan(0);
      for (const n of names) expect(allMetrics.has(n), `${q.where}: unknown metric ${n}`).toBe(true);
    }
  });

  it('together show every gateway metric', () => {
    const used = new Set(files.flatMap((f) => dashboardQueries(f).flatMap((q) => metricNamesIn(q.expr))));
    expect(gatewayMetrics.filter((m) => !used.has(m))).toEqual([]);
  });

  it.each(files)('%s: panels use the provisioned datasource uid and have unique ids', (file) => {
    const dash = readDashboard(file) as unknown as { uid?: string; title?: string };
    expect(dash.uid).toMatch(/^[a-z0-9-]{1,40}$/);
    const panels = panelsOf(file);
    expect(new Set(panels.map((p) => p.id)).size).toBe(panels.length);
    for (const p of panels.filter((x) => x.type !== 'row')) {
      expect(p.datasource?.uid, p.title).toBe(DATASOURCE_UID);
      expect(p.targets?.length, p.title).toBeGreaterThan(0);
      for (const t of p.targets ?? []) expect(t.datasource?.uid ?? DATASOURCE_UID, p.title).toBe(DATASOURCE_UID);
    }
  });

  it.each(files)('%s: model and provider template variables come from label_values', (file) => {
    const list = (readDashboard(file).templating?.list ?? []) as { name: string; type: string; definition: string; includeAll: boolean; allValue: string; datasource: { uid: string } }[];
    for (const name of ['model', 'provider']) {
      const v = list.find((x) => x.name === name);
      expect(v, name).toBeDefined();
      expect(v!.type).toBe('query');
      expect(v!.definition).toBe(`label_values(switchyard_requests_total, ${name})`);
      expect(v!.includeAll).toBe(true);
      expect(v!.allValue).toBe('.*');
      expect(v!.datasource.uid).toBe(DATASOURCE_UID);
    }
    // Variables are only used inside regex matchers, so multi-select and "All" both work.
    for (const q of dashboardQueries(file)) {
      for (const m of q.expr.matchAll(/(\w+)\s*(=~|!~|!=|=)\s*"\$(\w+)"/g)) expect(m[2], q.where).toBe('=~');
    }
  });
});

describe('grafana provisioning', () => {
  it('provisions the Prometheus datasource with the fixed uid', () => {
    const doc = parse(readFileSync(join(REPO_ROOT, 'grafana/provisioning/datasources/prometheus.yml'), 'utf8'));
    expect(doc.apiVersion).toBe(1);
    expect(doc.datasources).toHaveLength(1);
    expect(doc.datasources[0]).toMatchObject({ uid: DATASOURCE_UID, type: 'prometheus', access: 'proxy', url: 'http://127.0.0.1:9090' });
  });

  it('provisions the dashboards directory', () => {
    const doc = parse(readFileSync(join(REPO_ROOT, 'grafana/provisioning/dashboards/switchyard.yml'), 'utf8'));
    expect(doc.apiVersion).toBe(1);
    const provider = doc.providers[0];
    expect(provider).toMatchObject({ type: 'file' });
    expect(existsSync(join(REPO_ROOT, provider.options.path))).toBe(true);
    expect(readdirSync(join(REPO_ROOT, provider.options.path)).filter((f) => f.endsWith('.json')).sort()).toEqual([...files].sort());
  });
});

describe('grafana/alerts.yml', () => {
  it('covers error rate, gateway overhead p99 and TTFT p99 with known metrics', () => {
    const rules = alertRules();
    const exprs = rules.map((r) => r.expr).join('\n');
    expect(exprs).toContain('switchyard_requests_total');
    expect(exprs).toContain('switchyard_gateway_overhead_seconds_bucket');
    expect(exprs).toContain('switchyard_ttft_seconds_bucket');
    for (const r of rules) {
      expect(r.query, r.name).not.toBe(r.expr); // a threshold the e2e test can strip
      for (const n of metricNamesIn(r.expr)) expect(allMetrics.has(n), `${r.name}: unknown metric ${n}`).toBe(true);
      expect(r.name).toMatch(/^Switchyard[A-Z]\w+$/);
    }
  });
});
