// --workers 2: status.json shows the whole machine. Requests land on both workers (one connection
// each, so the primary's round-robin spreads them), and whichever worker answers /status.json counts
// all of them: the primary gathered every worker's windows, as it does for /metrics.
import { mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
      { status: { enabled: true }, state: { backend: 'file', path: mkdtempSync(join(tmpdir(), 'switchyard-status-workers-')) }, providers: { demo: { protocol: 'demo' } }, models: { demo: { provider: 'demo' } } },
      { workers: 2, readyMs: 60_000 },
    );
    // Workers start listening one after the other: send requests (one connection each, so the primary's
    // round-robin spreads them) until both have served some.
    let sent = 0;
    let body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
    const until = Date.now() + 40_000;
    for (;;) {
      for (let i = 0; i < 4; i++, sent++) {
        expect(await post(gateway.url + '/v1/messages', { model: 'demo', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] })).toBe(200);
      }
      body = await (await fetch(gateway.url + '/status.json')).json();
      if (new Set(body.recent.map((r: { pid: number }) => r.pid)).size === 2 && body.instance.workers_answering === 2) break;
      if (Date.now() > until || sent >= 96) throw new Error(`requests never reached both workers: ${JSON.stringify(body.instance)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const N = sent;
    expect(body.instance.workers).toBe(2);
    const pids = new Set(body.recent.map((r: { pid: number }) => r.pid));
    // Every request is listed and counted, whichever worker answers /status.json.
    expect(body.recent).toHaveLength(N);
    expect(body.traffic.doors.find((d: { door: string }) => d.door === 'messages').windows['1m'].requests).toBe(N);
    expect(body.deployments.find((d: { deployment: string }) => d.deployment === 'demo/demo').windows['1m'].requests).toBe(N);
    expect(pids.has(body.instance.pid)).toBe(false); // the instance pid is the primary's
  }, 90_000);
});
