// --workers 2: status.json shows the whole machine. Requests land on both workers (one connection
// each, so the primary's round-robin spreads them), and whichever worker answers /status.json counts
// all of them: the primary gathered every worker's windows, as it does for /metrics.
import { request } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { startGatewayProcess, type GatewayProcess } from '../../support/gateway-process.js';

let gateway: GatewayProcess | undefined;
afterAll(async () => {
  await gateway?.stop();
});

/** One request on its own connection. */
function post(url: string, body: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const text = JSON.stringify(body);
    const req = request(url, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(text);
  });
}

describe('status under --workers 2', () => {
  it('merges every worker: counts, deployments and the last requests of the whole machine', async () => {
    gateway = await startGatewayProcess(
      { status: { enabled: true }, state: { backend: 'memory' }, providers: { demo: { protocol: 'demo' } }, models: { demo: { provider: 'demo' } } },
      { workers: 2, readyMs: 60_000 },
    );
    const N = 12;
    for (let i = 0; i < N; i++) {
      const status = await post(gateway.url + '/v1/messages', { model: 'demo', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] });
      expect(status).toBe(200);
    }
    // Both workers must be up and answering before the count is meaningful.
    let body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
    await expect
      .poll(
        async () => {
          body = await (await fetch(gateway!.url + '/status.json')).json();
          return body.instance.workers_answering;
        },
        { timeout: 20_000 },
      )
      .toBe(2);
    expect(body.instance.workers).toBe(2);
    const pids = new Set(body.recent.map((r: { pid: number }) => r.pid));
    expect(pids.size).toBe(2); // served by both workers…
    expect(body.recent).toHaveLength(N); // …and every request is listed, whichever worker answers
    expect(body.traffic.doors.find((d: { door: string }) => d.door === 'messages').windows['1m'].requests).toBe(N);
    expect(body.deployments.find((d: { deployment: string }) => d.deployment === 'demo/demo').windows['1m'].requests).toBe(N);
    expect(pids.has(body.instance.pid)).toBe(false); // the instance pid is the primary's
  }, 90_000);
});
