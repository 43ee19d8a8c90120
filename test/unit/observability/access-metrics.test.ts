// Key, team, cost and budget series: labels come only from the configured names (anything else is
// "other"), cost is counted in USD from the record's micro-USD, and the budget gauge follows reloads.
import { describe, expect, it } from 'vitest';
import { Observability } from '../../../src/observability/observer.js';
import { RequestRecord } from '../../../src/observability/request-record.js';
import { captureLogger, samples, valueOf } from './support.js';

function finished(obs: Observability, key: string, team: string, costMicros: number): void {
  const rec = new RequestRecord('req_1', 'messages', performance.now());
  obs.requestStarted(rec);
  rec.keyName = key;
  rec.teamName = team;
  rec.modelLabel = 'claude';
  rec.status = 200;
  rec.usage = { inputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 5, reasoningTokens: 0 };
  rec.costMicros = costMicros;
  rec.tEnd = performance.now();
  obs.requestFinished(rec);
}

describe('access metrics', () => {
  it('labels keys and teams by configured name only, and counts cost in USD', async () => {
    const log = captureLogger('info');
    const obs = new Observability({ metricsEnabled: true, logger: log.logger, processMetrics: false, modelLabels: ['claude'] });
    obs.setAccess(['alice'], ['research'], []);
    finished(obs, 'alice', 'research', 2_500);
    finished(obs, 'alice', 'research', 500);
    // A name the config does not hold (a key removed by a reload while its request ran).
    finished(obs, 'mallory', 'darkside', 1_000);
    // Unpriced: no cost series, but the request and tokens still count.
    finished(obs, 'alice', '', -1);

    const cost = await samples(obs, 'switchyard_cost_usd_total');
    expect(valueOf(cost, { key: 'alice', team: 'research', model: 'claude' })).toBeCloseTo(0.003, 12);
    expect(valueOf(cost, { key: 'other', team: 'other', model: 'claude' })).toBeCloseTo(0.001, 12);
    expect(cost.length).toBe(2);
    const requests = await samples(obs, 'switchyard_key_requests_total');
    expect(valueOf(requests, { key: 'alice', team: 'research', status_class: '2xx' })).toBe(2);
    expect(valueOf(requests, { key: 'alice', team: 'none', status_class: '2xx' })).toBe(1);
    const tokens = await samples(obs, 'switchyard_key_tokens_total');
    expect(valueOf(tokens, { key: 'alice', team: 'research', kind: 'output' })).toBe(10);

    const line = log.lines().find((l) => l.cost_usd !== undefined);
    expect(line).toMatchObject({ key: 'alice', team: 'research', cost_usd: 0.0025 });
    expect(log.lines().filter((l) => l.msg === 'request finished' && l.cost_usd === undefined).length).toBe(1);
  });

  it('exports configured budgets and the spend seen at admission; a reload drops removed budgets', async () => {
    const obs = new Observability({ metricsEnabled: true, logger: captureLogger('silent').logger, processMetrics: false });
    obs.setAccess(['alice'], ['research'], [
      { scope: 'key', owner: 'alice', usd: 50 },
      { scope: 'team', owner: 'research', usd: 2000 },
    ]);
    obs.recordBudgetSpend('team', 'research', 1850.5);
    expect(valueOf(await samples(obs, 'switchyard_budget_usd'), { scope: 'team', owner: 'research' })).toBe(2000);
    expect(valueOf(await samples(obs, 'switchyard_budget_spent_usd'), { scope: 'team', owner: 'research' })).toBe(1850.5);
    obs.setAccess(['alice'], ['research'], [{ scope: 'team', owner: 'research', usd: 3000 }]);
    const budgets = await samples(obs, 'switchyard_budget_usd');
    expect(budgets.map((s) => [s.labels.scope, s.labels.owner, s.value])).toEqual([['team', 'research', 3000]]);
  });

  it('before the config is known, every key is "other" (never a first-come label)', async () => {
    const obs = new Observability({ metricsEnabled: true, logger: captureLogger('silent').logger, processMetrics: false, modelLabels: ['claude'] });
    finished(obs, 'alice', '', 100);
    expect((await samples(obs, 'switchyard_cost_usd_total')).map((s) => s.labels.key)).toEqual(['other']);
  });
});
