// Cooldown / circuit breaking per deployment: after N failures in the window the deployment is skipped
// for a cooldown that grows on repeated trips, then a half-open probe decides; count_tokens and model
// listings never trip it; the state is exported as a metric.
import net from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Harness } from '../../support/gateway-harness.js';
import type { Reply } from '../../support/scripted-upstream/index.js';
import { postJson } from '../../unit/support/raw-http.js';
import { generations, provider, routerHarness, sleep, user } from './support.js';

const text = (t: string): Reply => ({ kind: 'reply', blocks: [{ type: 'text', text: t }] });
const overloaded: Reply = { kind: 'http-error', status: 503 };
const COOLDOWN = 400;

async function closedPort(): Promise<string> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return `http://127.0.0.1:${port}`;
}

async function metrics(h: Harness): Promise<string> {
  const res = await fetch(h.url + '/metrics');
  expect(res.status).toBe(200);
  return res.text();
}

function gauge(text: string, provider: string, model: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`switchyard_deployment_circuit_state{provider="${provider}",model="${model}"}`));
  return line === undefined ? undefined : Number(line.split(' ').pop());
}

describe('router: cooldown and circuit breaking', () => {
  let h: Harness;

  beforeAll(async () => {
    const dead = await closedPort();
    h = await routerHarness((url) => ({
      providers: {
        flaky: provider('responses', url, { cooldown: { failures: 2, window_ms: 10_000, cooldown_ms: COOLDOWN, max_cooldown_ms: 10_000 } }),
        steady: provider('responses', url),
        'slow-probe': provider('responses', url, { cooldown: { failures: 1, window_ms: 10_000, cooldown_ms: 200, max_cooldown_ms: 10_000 } }),
        solo: provider('messages', url, { cooldown: { failures: 1, window_ms: 10_000, cooldown_ms: 5000, max_cooldown_ms: 10_000 } }),
        // Unreachable: every call to it fails.
        gone: provider('messages', dead, { cooldown: { failures: 1, window_ms: 10_000, cooldown_ms: 60_000, max_cooldown_ms: 60_000 } }),
      },
      models: {
        pair: { targets: [{ provider: 'flaky', model: 'gpt-flaky' }, { provider: 'steady', model: 'gpt-steady' }] },
        'slow-pair': { targets: [{ provider: 'slow-probe', model: 'gpt-probe' }, { provider: 'steady', model: 'gpt-steady' }] },
        solo: { provider: 'solo', model: 'claude-solo' },
        gone: { provider: 'gone', model: 'claude-gone' },
      },
    }));
  });
  afterAll(async () => {
    await h.close();
  });
  beforeEach(() => {
    h.upstream.received.length = 0;
  });

  const ask = () => h.openai.responses.create({ model: 'pair', input: 'hi', store: false }).withResponse();
  const seenModels = () => generations(h).map((r) => r.body.model as string);

  it('trips after N failures, skips the deployment, probes after the cooldown, and doubles it on a failed probe', async () => {
    // Configured deployments are listed as closed before anything happens.
    expect(gauge(await metrics(h), 'flaky', 'gpt-flaky')).toBe(0);

    // Two failures in the window (each request falls back and still succeeds).
    for (let i = 0; i < 2; i++) {
      h.upstream.enqueue(overloaded, text('fallback'));
      const { data } = await ask();
      expect(data.output_text).toBe('fallback');
    }
    expect(seenModels()).toEqual(['gpt-flaky', 'gpt-steady', 'gpt-flaky', 'gpt-steady']);
    expect(h.gateway.ctx.health.state('flaky/gpt-flaky')).toBe('open');
    expect(gauge(await metrics(h), 'flaky', 'gpt-flaky')).toBe(1);
    const trippedAt = Date.now();

    // Open: skipped entirely, straight to the healthy deployment, without counting as a fallback attempt.
    h.upstream.received.length = 0;
    h.upstream.enqueue(text('direct'));
    const skipped = await ask();
    expect(skipped.data.output_text).toBe('direct');
    expect(skipped.response.headers.get('x-switchyard-attempts')).toBe('1');
    expect(seenModels()).toEqual(['gpt-steady']);

    // After the cooldown: one probe goes to the flaky deployment; it fails, the circuit opens again for twice as long.
    await sleep(COOLDOWN - (Date.now() - trippedAt) + 50);
    h.upstream.received.length = 0;
    h.upstream.enqueue(overloaded, text('after probe'));
    await ask();
    expect(seenModels()).toEqual(['gpt-flaky', 'gpt-steady']);
    expect(h.gateway.ctx.health.state('flaky/gpt-flaky')).toBe('open');
    const reopenedAt = Date.now();
    expect(await metrics(h)).toMatch(/switchyard_deployment_circuit_transitions_total\{provider="flaky",state="half-open"\} 1/);

    // Still open after one base cooldown (it doubled)...
    await sleep(COOLDOWN - (Date.now() - reopenedAt) + 50);
    h.upstream.received.length = 0;
    h.upstream.enqueue(text('still skipped'));
    await ask();
    expect(seenModels()).toEqual(['gpt-steady']);

    // ...and probed again after two; this probe succeeds and closes the circuit.
    await sleep(2 * COOLDOWN - (Date.now() - reopenedAt) + 50);
    h.upstream.received.length = 0;
    h.upstream.enqueue(text('recovered'));
    const probe = await ask();
    expect(probe.data.output_text).toBe('recovered');
    expect(probe.response.headers.get('x-switchyard-model')).toBe('gpt-flaky');
    expect(h.gateway.ctx.health.state('flaky/gpt-flaky')).toBe('closed');
    const text2 = await metrics(h);
    expect(gauge(text2, 'flaky', 'gpt-flaky')).toBe(0);
    expect(text2).toMatch(/switchyard_deployment_circuit_transitions_total\{provider="flaky",state="open"\} 2/);
  });

  it('a half-open probe closes the circuit as soon as its answer starts, not when a long stream ends', async () => {
    h.upstream.enqueue(overloaded, text('fallback'));
    await h.openai.responses.create({ model: 'slow-pair', input: 'hi', store: false });
    expect(h.gateway.ctx.health.state('slow-probe/gpt-probe')).toBe('open');
    await sleep(250);
    h.upstream.received.length = 0;
    h.upstream.enqueue({ kind: 'stall', afterBlocks: [{ type: 'text', text: 'slow ' }], ms: 800 }, text('meanwhile'));
    const probe = h.openai.responses.stream({ model: 'slow-pair', input: 'probe', store: false });
    const firstDelta = new Promise<void>((resolve) => probe.on('response.output_text.delta', () => resolve()));
    await firstDelta;
    // The probe is still streaming; the deployment is already closed and takes new traffic.
    expect(h.gateway.ctx.health.state('slow-probe/gpt-probe')).toBe('closed');
    const { response } = await h.openai.responses.create({ model: 'slow-pair', input: 'next', store: false }).withResponse();
    expect(response.headers.get('x-switchyard-model')).toBe('gpt-probe');
    const done = await probe.finalResponse();
    expect(done.status).toBe('completed');
    expect(seenModels()).toEqual(['gpt-probe', 'gpt-probe']);
  });

  it('a deployment with no alternative is still tried while open (panic mode), and its state is exported', async () => {
    h.upstream.enqueue({ kind: 'http-error', status: 529 });
    await expect(h.anthropic.messages.create({ model: 'solo', max_tokens: 10, messages: [user('hi')] })).rejects.toMatchObject({ status: 529 });
    expect(h.gateway.ctx.health.state('solo/claude-solo')).toBe('open');
    expect(gauge(await metrics(h), 'solo', 'claude-solo')).toBe(1);
    // Refusing every request would protect nothing when there is no other deployment to go to.
    h.upstream.enqueue(text('still served'));
    const msg = await h.anthropic.messages.create({ model: 'solo', max_tokens: 10, messages: [user('hi')] });
    expect(msg.content).toEqual([expect.objectContaining({ text: 'still served' })]);
    expect(generations(h)).toHaveLength(2);
    // A success during the cooldown does not cut it short: the half-open probe decides.
    expect(h.gateway.ctx.health.state('solo/claude-solo')).toBe('open');
  });

  it('count_tokens and model listings never trip a circuit', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await postJson(h.url + '/v1/messages/count_tokens', { model: 'gone', messages: [user('count me')] });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-switchyard-token-count')).toBe('estimate');
    }
    expect((await fetch(h.url + '/v1/models/gone')).status).toBe(200);
    expect(h.gateway.ctx.health.state('claude-gone')).toBe('closed');
    expect(h.gateway.ctx.health.state('gone/claude-gone')).toBe('closed');
    expect(gauge(await metrics(h), 'gone', 'claude-gone')).toBe(0);
    // A generation does trip it (failures: 1).
    await expect(h.anthropic.messages.create({ model: 'gone', max_tokens: 10, messages: [user('hi')] })).rejects.toMatchObject({ status: 502 });
    expect(h.gateway.ctx.health.state('gone/claude-gone')).toBe('open');
    expect(gauge(await metrics(h), 'gone', 'claude-gone')).toBe(1);
  });
});
