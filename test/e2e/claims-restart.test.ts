// Which key an OpenAI response id belongs to, across a restart of the gateway process (review R10):
// on `memory` the claims die with the process, so after a restart another key's id is forwarded to the
// Responses upstream like any id the gateway never saw, and start-up warns about it; on `file` the
// claim survives and the id is still refused before anything goes upstream. A real gateway process,
// stopped and started again on the same port, and a scripted Responses upstream whose log says what
// was forwarded.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayProcess, waitForOutput, type GatewayProcess } from '../support/gateway-process.js';
import { echoMarkers, marker, responsesTurn } from '../support/responses-chain.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../support/scripted-upstream/index.js';

const ALICE = 'sk-claims-restart-alice-01';
const BOB = 'sk-claims-restart-bob-0001';

let upstream: ScriptedUpstream;
const running: GatewayProcess[] = [];

beforeAll(async () => {
  upstream = await startScriptedUpstream();
  upstream.setDefault(echoMarkers);
});
afterAll(async () => {
  await Promise.all(running.map((g) => g.stop()));
  await upstream?.close();
}, 30_000);

function config(state: Record<string, unknown>): Record<string, unknown> {
  return {
    // Stopped and started at once (no load balancer to wait for).
    server: { drain_delay_ms: 0 },
    auth: { keys: [{ name: 'alice', key: ALICE }, { name: 'bob', key: BOB }] },
    state,
    providers: { openai: { protocol: 'responses', base_url: upstream.url + '/v1', api_key: 'k-r', retry: { attempts: 1 } } },
    models: { gpt: { provider: 'openai', model: 'gpt-up' } },
  };
}

async function start(cfg: Record<string, unknown>, port?: number): Promise<GatewayProcess> {
  const g = await startGatewayProcess(cfg, port === undefined ? {} : { port });
  running.push(g);
  return g;
}

/** Alice's answer, once the gateway has saved it (the save runs after the last byte). */
async function alicesResponse(g: GatewayProcess, chain: string): Promise<string> {
  const r = await responsesTurn(g.url, { model: 'gpt', input: marker(chain, 1) }, { apiKey: ALICE });
  expect(r.status, r.text).toBe(200);
  const end = Date.now() + 5000;
  for (;;) {
    const got = await fetch(`${g.url}/v1/responses/${r.id}`, { headers: { authorization: `Bearer ${ALICE}` } });
    if (got.status === 200) return r.id!;
    if (Date.now() > end) throw new Error(`response ${r.id} not saved within 5 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Bob continues Alice's response: his answer, and what the upstream was sent for his turn. */
async function bobContinues(g: GatewayProcess, chain: string, id: string) {
  const r = await responsesTurn(g.url, { model: 'gpt', input: marker(chain, 2), previous_response_id: id }, { apiKey: BOB });
  const sent = upstream.received.filter((q) => q.method === 'POST' && JSON.stringify(q.body).includes(marker(chain, 2)));
  return { r, sent };
}

describe('id claims across a restart', () => {
  it('memory: refused before the restart; after it forwarded upstream as unknown; start-up warns', async () => {
    const cfg = config({ backend: 'memory' });
    let g = await start(cfg);
    // A warning (the test processes log at warn): two keys share a Responses upstream.
    await waitForOutput(g, /state\.backend memory keeps stored Responses and the claims .* a restart forgets them/);
    const id = await alicesResponse(g, 'mem');
    const before = await bobContinues(g, 'mem', id);
    expect(before.r.status).toBe(400);
    expect(JSON.parse(before.r.text).error.code).toBe('previous_response_not_found');
    expect(before.sent).toEqual([]);

    const port = g.port;
    await g.stop();
    g = await start(cfg, port);
    const after = await bobContinues(g, 'mem', id);
    // The documented limit: the claim is gone, so the id goes to OpenAI, which would resolve it.
    expect(after.r.status).toBe(200);
    expect(after.sent).toHaveLength(1);
    expect(after.sent[0]!.body.previous_response_id).toBe(id);
  }, 60_000);

  it('file: the claim survives the restart, and another key is still refused with nothing sent upstream', async () => {
    const cfg = config({ backend: 'file', path: join(mkdtempSync(join(tmpdir(), 'switchyard-claims-')), 'state') });
    let g = await start(cfg);
    const id = await alicesResponse(g, 'file');
    const port = g.port;
    await g.stop();
    g = await start(cfg, port);
    const after = await bobContinues(g, 'file', id);
    expect(after.r.status).toBe(400);
    expect(JSON.parse(after.r.text).error.code).toBe('previous_response_not_found');
    expect(after.sent).toEqual([]);
  }, 60_000);
});
