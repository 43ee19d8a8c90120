// Dashboards and alert rules proven against a real Prometheus: promtool checks the rules, Prometheus
// scrapes a live target at 1 s, and every PromQL expression of grafana/dashboards/*.json and
// grafana/alerts.yml is evaluated through the HTTP API and must parse and return data.
//
// Two targets, each with its own Prometheus:
//   - "harness": the real Observability class fed RequestRecords the way the routes fill them
//     (test/support/prometheus/metrics-harness.ts). Always runs; proves the Prometheus mechanics.
//   - "gateway": the real gateway (buildApp) in front of the scripted upstream, mixed traffic through
//     both doors and both lanes including failures, scraped on its own /metrics
//     (test/support/prometheus/gateway-traffic.ts). Runs as soon as the gateway loads.
//
// Needs the `prometheus` and `promtool` binaries (Debian's prometheus; scripts/install-test-deps.sh):
// without them this file fails, saying so.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { driveSyntheticTraffic, openLongStream, startMetricsTarget, type MetricsTarget } from '../support/prometheus/metrics-harness.js';
import { freePort, sleep, startPrometheus, waitFor, type PromResult, type RunningPrometheus } from '../support/prometheus/prometheus-server.js';
import {
  ALERTS_FILE,
  alertRules,
  DASHBOARD_DIR,
  dashboardQueries,
  substituteGrafanaVariables,
  type PanelQuery,
} from '../support/prometheus/promql-sources.js';
import { requireTool, requireTools } from '../support/required-tools.js';

requireTools('prometheus', 'promtool');
const PROMETHEUS = requireTool('prometheus');
const PROMTOOL = requireTool('promtool');

const QUERY_INTERVAL = '1m';
const TRAFFIC_ROUNDS = 6;
const ROUND_SPACING_MS = 700;

const DASHBOARD_FILES = existsSync(DASHBOARD_DIR) ? readdirSync(DASHBOARD_DIR).filter((f) => f.endsWith('.json')) : [];

// The real gateway is always part of the proof: a failure to load it is a failure, never a skip.
const gateway = await import('../support/prometheus/gateway-traffic.js');

function allExpressions(): PanelQuery[] {
  const out: PanelQuery[] = [];
  for (const file of DASHBOARD_FILES) {
    for (const q of dashboardQueries(file)) out.push({ where: q.where, expr: substituteGrafanaVariables(q.expr, QUERY_INTERVAL) });
  }
  for (const rule of alertRules()) {
    // The full rule must parse; it is legitimately empty while nothing is wrong.
    out.push({ where: `alerts.yml / ${rule.name} (with threshold)`, expr: rule.expr });
  }
  return out;
}

/** The part of each alert rule before its threshold: must have data once traffic flowed. */
function alertQueries(): PanelQuery[] {
  return alertRules().map((r) => ({ where: `alerts.yml / ${r.name}`, expr: r.query }));
}

function hasFiniteSample(r: PromResult): boolean {
  return (r.data?.result ?? []).some((s) => s.value !== undefined && Number.isFinite(Number(s.value[1])));
}

/**
 * Evaluate every expression; all must parse. Those not in `mayBeEmpty` (full alert rules with their
 * thresholds, and series a given target legitimately lacks) must return at least one finite sample.
 */
async function checkEveryExpression(prom: RunningPrometheus, mayBeEmpty: (q: PanelQuery) => boolean): Promise<void> {
  const failures: string[] = [];
  const queries = [...allExpressions(), ...alertQueries()];
  expect(queries.length).toBeGreaterThan(20);
  for (const q of queries) {
    const r = await prom.query(q.expr);
    if (r.status !== 'success') {
      failures.push(`${q.where}: does not evaluate (${r.errorType}: ${r.error})\n    ${q.expr}`);
      continue;
    }
    if (!mayBeEmpty(q) && !hasFiniteSample(r)) {
      failures.push(`${q.where}: no data (${JSON.stringify(r.data?.result ?? []).slice(0, 200)})\n    ${q.expr}`);
    }
  }
  expect(failures, failures.join('\n')).toEqual([]);
}

async function checkRulesHealthy(prom: RunningPrometheus): Promise<void> {
  const expected = alertRules().map((r) => r.name).sort();
  const rules = await waitFor('every alert rule to be evaluated', 20_000, async () => {
    const rs = await prom.rules();
    return rs.length === expected.length && rs.every((r) => r.health !== 'unknown') ? rs : undefined;
  });
  expect(rules.map((r) => r.name).sort()).toEqual(expected);
  for (const r of rules) expect({ rule: r.name, health: r.health, lastError: r.lastError ?? '' }).toEqual({ rule: r.name, health: 'ok', lastError: '' });
}

/** Wait until Prometheus has scraped samples of the main series, with increases inside the window. */
async function waitForData(prom: RunningPrometheus): Promise<void> {
  await waitFor('request rate and latency series in Prometheus', 30_000, async () => {
    const rate = await prom.query(`sum(rate(switchyard_requests_total[${QUERY_INTERVAL}]))`);
    const p99 = await prom.query(`histogram_quantile(0.99, sum by (le) (rate(switchyard_request_duration_seconds_bucket[${QUERY_INTERVAL}])))`);
    return hasFiniteSample(rate) && Number(rate.data!.result[0]!.value![1]) > 0 && hasFiniteSample(p99) ? true : undefined;
  });
}

describe('Prometheus end to end', () => {
  it('promtool accepts grafana/alerts.yml', () => {
    const r = spawnSync(PROMTOOL, ['check', 'rules', ALERTS_FILE], { encoding: 'utf8', timeout: 30_000 });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/SUCCESS: \d+ rules found/);
  });

  it('finds the dashboards to check', () => {
    expect(DASHBOARD_FILES.length).toBeGreaterThan(0);
  });

  describe('against the Observability harness', () => {
    let target: MetricsTarget | undefined;
    let prom: RunningPrometheus | undefined;
    let finishLongStream: (() => void) | undefined;

    beforeAll(async () => {
      target = await startMetricsTarget();
      prom = await startPrometheus(PROMETHEUS, { targets: [target.address], ruleFiles: [ALERTS_FILE], scrapeIntervalSeconds: 1 });
      const config = spawnSync(PROMTOOL, ['check', 'config', prom.configPath], { encoding: 'utf8', timeout: 30_000 });
      expect(config.status, config.stdout + config.stderr).toBe(0);
      await prom.waitForTargetsUp(20_000);
      finishLongStream = openLongStream(target.obs);
      // Traffic spread over several scrapes, so rate() sees increases between samples.
      for (let round = 0; round < TRAFFIC_ROUNDS; round++) {
        driveSyntheticTraffic(target.obs, round);
        await sleep(ROUND_SPACING_MS);
      }
      await waitForData(prom);
    }, 90_000);

    afterAll(async () => {
      finishLongStream?.();
      await prom?.stop();
      await target?.close();
    }, 30_000);

    it('loads and evaluates every alert rule without error', async () => {
      await checkRulesHealthy(prom!);
    });

    it('evaluates every dashboard and alert expression with data', async () => {
      // The harness drives every series, so only the thresholded alert rules may be empty.
      await checkEveryExpression(prom!, (q) => q.where.endsWith('(with threshold)'));
    }, 60_000);

    it('keeps model labels bounded: unknown models are "other"', async () => {
      const r = await prom!.query('count by (model) (switchyard_requests_total)');
      const models = r.data!.result.map((s) => s.metric.model).sort();
      expect(models).toEqual(['demo', 'other', 'via-chat', 'via-messages', 'via-responses']);
    });
  });

  // ------------------------------------------------------------------------------------------
  // The real gateway: test/support/prometheus/gateway-traffic.ts (startHarness → buildApp + the
  // scripted upstream) driven through both doors and both lanes, failures included.
  describe('against the real gateway', () => {
    let prom: RunningPrometheus | undefined;
    let close: (() => Promise<void>) | undefined;

    beforeAll(async () => {
      const target = await gateway.startGatewayTarget(await freePort());
      close = target.close;
      prom = await startPrometheus(PROMETHEUS, { targets: [target.address], ruleFiles: [ALERTS_FILE], scrapeIntervalSeconds: 1 });
      await prom.waitForTargetsUp(20_000);
      for (let round = 0; round < TRAFFIC_ROUNDS; round++) {
        await target.round(round);
        await sleep(ROUND_SPACING_MS);
      }
      await waitForData(prom);
    }, 120_000);

    afterAll(async () => {
      await prom?.stop();
      await close?.();
    }, 30_000);

    it('loads and evaluates every alert rule without error', async () => {
      await checkRulesHealthy(prom!);
    });

    it('evaluates every dashboard and alert expression with data', async () => {
      // The traffic covers every series (aborts, warnings, retries, fallback, circuit included).
      await checkEveryExpression(prom!, (q) => q.where.endsWith('(with threshold)'));
    }, 60_000);
  });
});
