// Caller-chosen model names cannot blind the status page (review R7): 200 made-up names on a wildcard
// route (each a 404 from the upstream) end up in one `(other)` row, and a configured deployment first
// used after them still shows its requests and latency.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODELS, startHarness, type Harness } from '../../support/gateway-harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    config: () => ({
      status: { enabled: true },
      models: {
        [MODELS.messages.alias]: { provider: 'up-messages', model: MODELS.messages.upstream },
        'demo-*': { provider: 'up-messages' },
      },
    }),
  });
});
afterAll(async () => {
  await h?.close();
});

const post = (model: string) =>
  fetch(h.url + '/v1/messages', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model, max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }) });

describe('the deployment table under 200 wildcard names', () => {
  it('bounds the rows and keeps the configured deployment visible', async () => {
    for (let i = 1; i <= 200; i++) {
      h.upstream.enqueue({ kind: 'http-error', status: 404, type: 'not_found_error', message: 'model not found' });
      expect((await post(`demo-x${String(i).padStart(3, '0')}`)).status).toBe(404);
    }
    for (let i = 0; i < 5; i++) expect((await post(MODELS.messages.alias)).status).toBe(200);
    const body = (await (await fetch(h.url + '/status.json')).json()) as { deployments: { deployment: string; other?: true; windows: Record<string, { requests: number; p50_ms: number | null }> }[]; untracked_deployments: number };
    expect(body.deployments.map((d) => d.deployment)).toEqual(['up-messages/claude-upstream-1', 'up-messages/(other)']);
    const configured = body.deployments[0]!;
    expect(configured.windows['1m']!.requests).toBe(5);
    expect(configured.windows['1m']!.p50_ms).not.toBeNull();
    expect(body.deployments[1]).toMatchObject({ other: true, windows: { '1m': { requests: 200 } } });
    expect(body.untracked_deployments).toBe(200);
    // What the upstream was sent: every made-up name passed through (the table's bound changes nothing upstream).
    expect(h.upstream.received.filter((r) => String((r.body as { model?: string }).model).startsWith('demo-x'))).toHaveLength(200);
  }, 60_000);
});
