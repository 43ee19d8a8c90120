// Every PromQL expression the project ships: dashboard panel targets and alert rules, read from the
// files themselves so a new panel or rule is covered by the tests without anyone listing it.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const DASHBOARD_DIR = join(REPO_ROOT, 'grafana', 'dashboards');
export const ALERTS_FILE = join(REPO_ROOT, 'grafana', 'alerts.yml');

export interface PanelQuery {
  /** "<dashboard title> / <panel title> / <refId>" */
  where: string;
  expr: string;
}

interface PanelLike {
  title?: string;
  targets?: { refId?: string; expr?: string }[];
  panels?: PanelLike[];
}

export function readDashboard(file: string): { title: string; panels: PanelLike[]; templating?: { list: unknown[] } } {
  return JSON.parse(readFileSync(join(DASHBOARD_DIR, file), 'utf8'));
}

/** Every `targets[].expr` of every panel (rows' nested panels included). */
export function dashboardQueries(file: string): PanelQuery[] {
  const dash = readDashboard(file);
  const out: PanelQuery[] = [];
  const walk = (panels: PanelLike[] | undefined) => {
    for (const p of panels ?? []) {
      for (const t of p.targets ?? []) {
        if (typeof t.expr === 'string' && t.expr.trim() !== '') out.push({ where: `${dash.title} / ${p.title} / ${t.refId}`, expr: t.expr });
      }
      walk(p.panels);
    }
  };
  walk(dash.panels);
  return out;
}

/**
 * Grafana template variables → values Prometheus accepts: $model/$provider (and ${…} forms) become
 * ".*" (the dashboards use them only inside =~ matchers), interval variables become `interval`.
 */
export function substituteGrafanaVariables(expr: string, interval = '1m'): string {
  return expr
    .replace(/\$__(rate_interval|interval|range)\b|\$\{__(rate_interval|interval|range)\}/g, interval)
    .replace(/\$\{(\w+)(:\w+)?\}|\$(\w+)/g, '.*');
}

export interface AlertRule {
  name: string;
  expr: string;
  /** The expression without its trailing `<op> <number>` threshold: the part that should have data. */
  query: string;
}

export function alertRules(): AlertRule[] {
  const doc = parse(readFileSync(ALERTS_FILE, 'utf8')) as { groups: { rules: { alert?: string; record?: string; expr: string }[] }[] };
  return doc.groups.flatMap((g) =>
    g.rules.map((r) => ({ name: r.alert ?? r.record ?? '?', expr: r.expr.trim(), query: withoutThreshold(r.expr.trim()) })),
  );
}

const THRESHOLD = /\s*(>|<|>=|<=|==|!=)\s*(bool\s+)?[-+]?[0-9.]+(e[-+]?\d+)?\s*$/i;

export function withoutThreshold(expr: string): string {
  return expr.replace(THRESHOLD, '');
}

/** Metric names (`switchyard_…`) an expression reads, histogram suffixes stripped. */
export function metricNamesIn(expr: string): string[] {
  const names = expr.match(/\bswitchyard_[a-z0-9_]+/g) ?? [];
  return [...new Set(names.map((n) => n.replace(/_(bucket|sum|count)$/, '')))];
}
