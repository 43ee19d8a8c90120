// metrics.port (issue 19, item 6): /metrics names every key, team and spend, so with metrics.port set
// it is served on its own loopback listener and no longer on the API port — by the process itself, and
// under --workers by the primary with every worker's counts merged. Without it, on a gateway with keys,
// the API port's /metrics follows the operator-data rule (docs/security.md): 403 without admin keys,
// served with metrics.public, warned at start and reload.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, startGatewayProcess, waitForOutput, type GatewayProcess } from '../support/gateway-process.js';

const KEY = 'sk-sy-metrics-port-0123456789';

let gw: GatewayProcess | undefined;
afterEach(async () => {
  await gw?.stop();
  gw = undefined;
});

async function generate(url: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const res = await fetch(url + '/v1/messages', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': KEY, connection: 'close' },
      body: JSON.stringify({ model: 'demo', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
  }
}

function requestsTotal(text: string): number {
  const line = text.split('\n').find((l) => l.startsWith('switchyard_requests_total{front_door="messages"'));
  return line === undefined ? 0 : Number(line.split(' ').pop());
}

async function waitForMetrics(url: string, ms = 15_000): Promise<Response> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      return await fetch(url);
    } catch (err) {
      if (Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

const config = (metricsPort: number, dir: string) => ({
  auth: { keys: [{ name: 'tenant-alice', key: KEY }] },
  metrics: { port: metricsPort },
  state: { backend: 'file', path: join(dir, 'state') },
  providers: { demo: { protocol: 'demo' } },
  models: { demo: { provider: 'demo' } },
});

describe('metrics.port', () => {
  for (const workers of [undefined, 2]) {
    it(workers ? `--workers ${workers}: the primary serves the merged view there` : 'one process: served there, not on the API port', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'switchyard-metrics-port-'));
      const metricsPort = await freePort();
      gw = await startGatewayProcess(config(metricsPort, dir), { workers });
      await generate(gw.url, 6);

      // Not on the API port, with a key or without.
      for (const headers of [{}, { 'x-api-key': KEY }] as Record<string, string>[]) {
        const api = await fetch(gw.url + '/metrics', { headers });
        const text = await api.text();
        expect(api.status, text).not.toBe(200);
        expect(text).not.toContain('tenant-alice');
      }

      const res = await waitForMetrics(`http://127.0.0.1:${metricsPort}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      const text = await res.text();
      expect(requestsTotal(text), gw.output()).toBe(6);
      expect(text).toContain('key="tenant-alice"');
      expect((await fetch(`http://127.0.0.1:${metricsPort}/v1/messages`)).status).toBe(404);
    }, 60_000);
  }

  it('without metrics.port, /metrics on the API port follows the operator-data rule: 403 without admin keys, public when a reload says so', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchyard-metrics-port-'));
    gw = await startGatewayProcess(config(0, dir));
    await generate(gw.url, 2);
    for (const headers of [{}, { 'x-api-key': KEY }] as Record<string, string>[]) {
      const refused = await fetch(gw.url + '/metrics', { headers });
      const text = await refused.text();
      expect(refused.status).toBe(403);
      expect(text).toMatch(/needs a key from auth\.admin_keys and none are configured: set metrics\.port/);
      expect(text).not.toContain('tenant-alice');
    }
    // Said at start-up, so the operator knows why the scrape fails (the log is written in batches, so wait for it).
    await waitForOutput(gw, /\/metrics on the API port needs a key from auth\.admin_keys and none are configured, so it answers 403/);

    // A reload that switches the status page on with nobody to read it is refused; the running config stays.
    const rewrite = (extra: Record<string, unknown>) =>
      writeFileSync(gw!.configFile, JSON.stringify({ log: { level: 'warn' }, ...config(0, dir), ...extra, server: { host: '127.0.0.1', port: gw!.port } }));
    rewrite({ status: { enabled: true } });
    process.kill(gw.pid, 'SIGHUP');
    await waitForOutput(gw, /"error":"status\.enabled: the status data names every key[^\n]*configuration reload refused/);
    expect((await fetch(gw.url + '/status.json')).status).toBe(404);

    // A reload to metrics.public: served without a key, and the warning is said again.
    rewrite({ metrics: { public: true } });
    process.kill(gw.pid, 'SIGHUP');
    await waitForOutput(gw, /\/metrics on the API port readable without a key \(metrics\.public: true\)/);
    const res = await fetch(gw.url + '/metrics');
    expect(res.status).toBe(200);
    expect(requestsTotal(await res.text())).toBe(2);
  }, 60_000);
});
