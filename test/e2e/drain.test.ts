// The drain (src/http/drain.ts), step by step:
//   - in process: /readyz 503 at once while requests are still accepted and served for drain_delay_ms,
//     then connections refused; what still runs at the end of shutdown_grace_ms is ended with the
//     protocol's retryable error — a Messages stream with `overloaded_error`, a Responses stream with
//     `response.failed`, a request still waiting for its upstream with 529 — and counted in
//     switchyard_shutdown_cut_total;
//   - --workers 2 (real processes): SIGTERM to the primary drains every worker: not ready, still serving,
//     the running stream finishes, exit 0, the timeline in the log of each worker.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drainAndClose } from '../../src/http/drain.js';
import { startGatewayProcess } from '../support/gateway-process.js';
import { startHarness, type Harness } from '../support/gateway-harness.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../support/scripted-upstream/index.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Opens a stream and resolves once its first bytes are in; `rest` resolves with the whole body. */
async function openStream(url: string, path: string, body: Record<string, unknown>): Promise<{ status: number; rest: Promise<string> }> {
  const res = await fetch(url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'k', authorization: 'Bearer k', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ ...body, stream: true }),
  });
  const reader = res.body!.getReader();
  const first = await reader.read();
  let text = new TextDecoder().decode(first.value);
  const rest = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return text;
      text += new TextDecoder().decode(value);
    }
  })();
  return { status: res.status, rest };
}

function messagesBody(model: string, text: string) {
  return { model, max_tokens: 32, messages: [{ role: 'user' as const, content: text }] };
}

describe('drain in process', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    h.upstream.setDefault((req) => {
      const body = JSON.stringify(req.body);
      if (body.includes('[long-stream]')) return { kind: 'stall', afterBlocks: [{ type: 'text', text: 'begun' }], ms: 20_000 };
      if (body.includes('[long-wait]')) return { kind: 'delay-headers', ms: 20_000, then: { kind: 'reply', blocks: [{ type: 'text', text: 'late' }] } };
      return { kind: 'reply', blocks: [{ type: 'text', text: 'quick' }] };
    });
  });
  afterAll(async () => {
    await h.close();
  });

  it('not ready at once, serves through the delay, refuses after it, cuts what outlives the grace with a retryable error', async () => {
    const { app, ctx } = h.gateway;
    const messagesStream = await openStream(h.url, '/v1/messages', messagesBody('via-messages', '[long-stream]'));
    const responsesStream = await openStream(h.url, '/v1/responses', { model: 'via-messages', input: '[long-stream]' });
    expect([messagesStream.status, responsesStream.status]).toEqual([200, 200]);
    const waiting = h.anthropic.messages.create(messagesBody('via-responses', '[long-wait]')).then(
      () => 'answered',
      (err: { status?: number; error?: { error?: { type?: string } } }) => `${err.status} ${err.error?.error?.type}`,
    );
    await sleep(200);

    const drained = drainAndClose(app, ctx, { drainDelayMs: 800, graceMs: 1000, reason: 'test' });
    // The delay: not ready, alive, and still serving new requests.
    const ready = await fetch(h.url + '/readyz');
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: 'draining' });
    expect(ctx.draining).toBe(true);
    expect((await fetch(h.url + '/livez')).status).toBe(200);
    const served = await h.anthropic.messages.create(messagesBody('via-messages', 'hello'));
    expect(served.content[0]).toMatchObject({ type: 'text', text: 'quick' });
    // After it: no longer accepting.
    await sleep(1000);
    await expect(fetch(h.url + '/livez', { headers: { connection: 'close' } })).rejects.toThrow();

    const outcome = await drained;
    // Counted per door; the doors with nothing cut are zeros.
    expect(Object.fromEntries(Object.entries(outcome.cut).filter(([, n]) => n !== 0))).toEqual({ messages: 2, responses: 1 });
    const messagesText = await messagesStream.rest;
    expect(messagesText).toContain('event: error');
    expect(messagesText).toMatch(/"type":"overloaded_error","message":"the gateway instance is shutting down; retry the request"/);
    const responsesText = await responsesStream.rest;
    expect(responsesText).toContain('event: response.failed');
    expect(responsesText).toMatch(/"status":"failed"/);
    expect(responsesText).toMatch(/"code":"server_error","message":"the gateway instance is shutting down; retry the request"/);
    // The request still waiting for its upstream's headers: a real 529, which Anthropic's SDK retries.
    expect(await waiting).toBe('529 overloaded_error');
    const metrics = await ctx.obs.metricsText();
    expect(metrics).toContain('switchyard_shutdown_cut_total{front_door="messages"} 2');
    expect(metrics).toContain('switchyard_shutdown_cut_total{front_door="responses"} 1');
  }, 20_000);
});

describe('drain under --workers 2', () => {
  let upstream: ScriptedUpstream;
  beforeAll(async () => {
    upstream = await startScriptedUpstream();
    upstream.setDefault((req) =>
      JSON.stringify(req.body).includes('[stream]')
        ? { kind: 'stall', afterBlocks: [{ type: 'text', text: 'part one' }], ms: 2500 }
        : { kind: 'reply', blocks: [{ type: 'text', text: 'quick' }] },
    );
  });
  afterAll(async () => {
    await upstream?.close();
  });

  it('SIGTERM to the primary: every worker drains, the running stream finishes, exit 0', async () => {
    const g = await startGatewayProcess(
      {
        log: { level: 'info' },
        server: { drain_delay_ms: 1500, shutdown_grace_ms: 5000 },
        // Workers share state through the file backend (memory is refused under --workers).
        state: { backend: 'file', path: mkdtempSync(join(tmpdir(), 'switchyard-drain-')) },
        providers: { up: { protocol: 'messages', base_url: upstream.url, api_key: 'u' } },
        models: { m: { provider: 'up', model: 'claude-up' } },
      },
      { workers: 2 },
    );
    try {
      // Both workers listening (and so handling SIGTERM), not only the first to answer.
      const end = Date.now() + 30_000;
      while (g.output().split('switchyard listening on').length - 1 < 2 && Date.now() < end) await sleep(100);
      const stream = await openStream(g.url, '/v1/messages', messagesBody('m', '[stream]'));
      const stopped = g.stop(20_000);
      await sleep(300);
      // Both workers answer the probe (one connection each, round robin): neither is ready.
      for (let i = 0; i < 4; i++) {
        const r = await fetch(g.url + '/readyz', { headers: { connection: 'close' } });
        expect(r.status).toBe(503);
        expect(await r.json()).toEqual({ status: 'draining' });
      }
      const served = await fetch(g.url + '/v1/messages', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01', connection: 'close' },
        body: JSON.stringify(messagesBody('m', 'hi')),
      });
      expect(served.status).toBe(200);
      const text = await stream.rest;
      expect(text).toContain('event: message_stop');
      expect(text).not.toContain('event: error');
      expect(await stopped).toBe(0);
      const out = g.output();
      for (const step of ['drain: not ready', 'drain: stopped accepting', 'drain: every running request and stream finished', 'drain: closed']) {
        expect(out.split(step).length - 1, step + '\n' + out.slice(-4000)).toBe(2);
      }
    } finally {
      await g.stop();
    }
  }, 60_000);
});
