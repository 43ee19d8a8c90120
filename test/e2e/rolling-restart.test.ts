// A rolling restart behind a real load balancer: HAProxy (health check on /readyz every 500 ms, no retry
// of a refused connection, as kube-proxy gives a Service) in front of three gateway processes on one
// redis-server. Under steady mixed load for at least 30 s — non-streamed requests on both doors, 5-second
// streams on both doors, three-turn previous_response_id conversations, a key limited to a known rpm — the
// three are restarted one after another as Kubernetes does (SIGTERM, wait for the exit, start a new one).
//   - with the drain (drain_delay_ms > the balancer's detection time): zero failed requests, zero cut
//     streams, every conversation continues across instances, the limited key gets exactly its limit,
//     and each stopped instance logged the drain timeline;
//   - with drain_delay_ms: 0 the same run loses requests: the drain is what saves them.
// Clients are plain fetch on purpose: the vendors' SDKs retry 5xx and connection errors by themselves,
// which would hide exactly the failures this test counts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startGatewayProcess, waitForOutput, type GatewayProcess } from '../support/gateway-process.js';
import { startHaproxy } from '../support/haproxy.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { requireTools } from '../support/required-tools.js';
import { echoMarkers, marker, responsesTurn } from '../support/responses-chain.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../support/scripted-upstream/index.js';

const INSTANCES = 3;
const LOAD_MS = 30_000;
const RPM = 20;
const LIMITED_TRIES = 45;
requireTools('haproxy', 'redis-server');

let upstream: ScriptedUpstream;
let redis: RedisServer;

beforeAll(async () => {
  redis = await startRedisServer();
  upstream = await startScriptedUpstream();
  upstream.setDefault((req) =>
    JSON.stringify(req.body).includes('[slow]')
      ? { kind: 'stall', afterBlocks: [{ type: 'text', text: 'slow stream done' }], ms: 5000 }
      : echoMarkers(req),
  );
}, 30_000);

afterAll(async () => {
  await upstream?.close();
  await redis?.stop();
}, 30_000);

function gatewayConfig(prefix: string, drainDelayMs: number): Record<string, unknown> {
  const p = (protocol: string, key: string) => ({ protocol, base_url: protocol === 'messages' ? upstream.url : upstream.url + '/v1', api_key: key, retry: { attempts: 1 } });
  return {
    log: { level: 'info' },
    server: { drain_delay_ms: drainDelayMs, shutdown_grace_ms: 15_000 },
    auth: {
      keys: [
        { name: 'caller', key: 'caller-key' },
        { name: 'limited', key: 'limited-key', limits: { rpm: RPM } },
      ],
    },
    state: { backend: 'redis', url: redis.url, key_prefix: prefix },
    // Scraped without a key on the API port, on purpose (docs/security.md).
    metrics: { public: true },
    providers: { 'up-messages': p('messages', 'k-m'), 'up-responses': p('responses', 'k-r') },
    models: {
      'via-messages': { provider: 'up-messages', model: 'claude-up' },
      'via-responses': { provider: 'up-responses', model: 'gpt-up' },
    },
  };
}

interface Tally {
  requests: number;
  failed: string[];
  streams: number;
  cutStreams: string[];
  conversations: number;
  brokenConversations: string[];
  limitedOk: number;
  limitedRefused: number;
  limitedOther: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function messagesCall(url: string, model: string, text: string, stream: boolean, key = 'caller-key'): Promise<{ status: number; body: string }> {
  const res = await fetch(url + '/v1/messages', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model, max_tokens: 64, stream, messages: [{ role: 'user', content: text }] }),
    signal: AbortSignal.timeout(30_000),
  });
  return { status: res.status, body: await res.text() };
}

/** The text of a Messages stream: its text deltas joined. */
function messagesText(sse: string): string {
  let text = '';
  for (const line of sse.split('\n')) {
    if (!line.startsWith('data: ')) continue;
    const ev = JSON.parse(line.slice(6)) as { type: string; delta?: { type: string; text?: string } };
    if (ev.type === 'content_block_delta' && ev.delta?.type === 'text_delta') text += ev.delta.text ?? '';
  }
  return text;
}

/** Steady mixed load on `url` until `stop()` says so; every outcome tallied. */
function runLoad(url: string, stop: () => boolean): { tally: Tally; done: Promise<void> } {
  const tally: Tally = { requests: 0, failed: [], streams: 0, cutStreams: [], conversations: 0, brokenConversations: [], limitedOk: 0, limitedRefused: 0, limitedOther: [] };
  const guard = async (what: string, fn: () => Promise<string | undefined>, onFail: string[]) => {
    try {
      const err = await fn();
      if (err) onFail.push(`${what}: ${err}`);
    } catch (e) {
      onFail.push(`${what}: ${(e as Error).message}`);
    }
  };
  let seq = 0;
  // Non-streamed requests on both doors, translation and pass-through, back to back.
  const plain = async (w: number) => {
    while (!stop()) {
      const i = seq++;
      tally.requests++;
      await guard(
        `plain ${i}`,
        async () => {
          const m = marker(`p${w}-${i}`, 1);
          if (i % 2 === 0) {
            const r = await messagesCall(url, i % 4 === 0 ? 'via-messages' : 'via-responses', `${m} hi`, false);
            if (r.status !== 200 || !r.body.includes(`(ok ${m})`)) return `${r.status} ${r.body.slice(0, 200)}`;
          } else {
            const r = await responsesTurn(url, { model: i % 4 === 1 ? 'via-messages' : 'via-responses', input: `${m} hi` });
            if (r.status !== 200 || r.text !== `(ok ${m})`) return `${r.status} ${r.text.slice(0, 200)}`;
          }
          return undefined;
        },
        tally.failed,
      );
      await sleep(60);
    }
  };
  // 5-second streams, one door each, one after another.
  const streams = async (door: 'messages' | 'responses', model: string) => {
    while (!stop()) {
      const i = seq++;
      tally.streams++;
      await guard(
        `${door} stream ${i}`,
        async () => {
          if (door === 'messages') {
            const r = await messagesCall(url, model, `[slow] ${i}`, true);
            if (r.status !== 200) return `${r.status} ${r.body.slice(0, 200)}`;
            if (!r.body.includes('event: message_stop') || r.body.includes('event: error') || messagesText(r.body) !== 'slow stream done') return `cut: ${r.body.slice(-300)}`;
            return undefined;
          }
          const r = await responsesTurn(url, { model, input: `[slow] ${i}` }, { stream: true, signal: AbortSignal.timeout(30_000) });
          if (r.status !== 200 || r.text !== 'slow stream done') return `${r.status} ${r.text.slice(0, 300)}`;
          return undefined;
        },
        tally.cutStreams,
      );
    }
  };
  // Three-turn conversations; round robin puts the turns on different instances.
  const conversations = async (w: number) => {
    while (!stop()) {
      const c = `conv${w}-${seq++}`;
      tally.conversations++;
      await guard(
        c,
        async () => {
          let prev: string | undefined;
          for (let t = 1; t <= 3; t++) {
            const m = marker(c, t);
            const r = await responsesTurn(url, { model: 'via-messages', input: `${m} go`, ...(prev ? { previous_response_id: prev } : {}) }, { stream: t === 2 });
            if (r.status !== 200 || r.text !== `(ok ${m})`) return `turn ${t}: ${r.status} ${r.text.slice(0, 200)}`;
            prev = r.id;
            await sleep(150);
          }
          // Turn 3 reached the upstream with both earlier turns, questions and answers.
          const last = JSON.stringify(upstream.received.find((q) => q.method === 'POST' && JSON.stringify(q.body).includes(marker(c, 3)))?.body ?? {});
          for (const t of [1, 2]) if (!last.includes(marker(c, t)) || !last.includes(`(ok ${marker(c, t)})`)) return `turn 3 lacks turn ${t}`;
          return undefined;
        },
        tally.brokenConversations,
      );
    }
  };
  // The limited key: a fixed number of tries spread over the run (inside one rpm window).
  const limited = async () => {
    for (let i = 0; i < LIMITED_TRIES && !stop(); i++) {
      const m = marker(`lim${i}`, 1);
      try {
        const r = await messagesCall(url, 'via-messages', `${m} hi`, false, 'limited-key');
        if (r.status === 200 && r.body.includes(`(ok ${m})`)) tally.limitedOk++;
        else if (r.status === 429 && r.body.includes('rate_limit_error')) tally.limitedRefused++;
        else tally.limitedOther.push(`${r.status} ${r.body.slice(0, 200)}`);
      } catch (e) {
        tally.limitedOther.push((e as Error).message);
      }
      await sleep(LOAD_MS / LIMITED_TRIES);
    }
  };
  const done = Promise.all([
    plain(0),
    plain(1),
    plain(2),
    streams('messages', 'via-messages'),
    streams('messages', 'via-responses'),
    streams('responses', 'via-responses'),
    streams('responses', 'via-messages'),
    conversations(0),
    conversations(1),
    limited(),
  ]).then(() => undefined);
  return { tally, done };
}

/** Three gateways behind HAProxy, load, a rolling restart; the tally and every stopped instance's log. */
async function rollingRestart(prefix: string, drainDelayMs: number): Promise<{ tally: Tally; logs: string[]; loadMs: number; exitCodes: (number | null)[] }> {
  const config = gatewayConfig(prefix, drainDelayMs);
  const ports = await Promise.all(Array.from({ length: INSTANCES }, () => freePort()));
  const gateways: GatewayProcess[] = [];
  const logs: string[] = [];
  const exitCodes: (number | null)[] = [];
  const lb = await startHaproxy(ports);
  try {
    for (const port of ports) gateways.push(await startGatewayProcess(config, { port }));
    for (let i = 0; i < INSTANCES; i++) await lb.waitUp(i);
    // Each instance registered itself on the Redis: /readyz counts them (no hostnames or pids: it needs no
    // key), and so does the gauge.
    const readyz = (await (await fetch(gateways[0]!.url + '/readyz')).json()) as { instances?: number; others?: unknown };
    expect(readyz.instances).toBe(INSTANCES);
    expect(readyz.others).toBeUndefined();
    expect(await (await fetch(gateways[1]!.url + '/metrics')).text()).toMatch(/^switchyard_instances 3$/m);
    for (const g of gateways) await waitForOutput(g, /[23] gateway instances share this Redis: stored Responses/);
    let stopped = false;
    const started = Date.now();
    const load = runLoad(lb.url, () => stopped);
    await sleep(3000);
    for (let i = 0; i < INSTANCES; i++) {
      // As the kubelet does: SIGTERM, wait for the process to exit, start the replacement.
      exitCodes.push(await gateways[i]!.stop(60_000));
      logs.push(gateways[i]!.output());
      gateways[i] = await startGatewayProcess(config, { port: ports[i] });
      // The next pod goes only once this one is ready (as maxUnavailable: 1 would have it).
      await lb.waitUp(i);
    }
    await sleep(Math.max(2000, LOAD_MS - (Date.now() - started)));
    stopped = true;
    await load.done;
    return { tally: load.tally, logs, loadMs: Date.now() - started, exitCodes };
  } finally {
    await Promise.all(gateways.map((g) => g.stop(30_000)));
    await lb.stop();
  }
}

function summary(t: Tally): string {
  return `requests ${t.requests} (failed ${t.failed.length}), streams ${t.streams} (cut ${t.cutStreams.length}), conversations ${t.conversations} (broken ${t.brokenConversations.length}), limited key ${t.limitedOk} ok / ${t.limitedRefused} refused / ${t.limitedOther.length} other`;
}

describe('rolling restart behind HAProxy (three gateways, one Redis)', () => {
  it('with the drain: nothing fails, no stream is cut, conversations continue, the limit stays exact', async () => {
    const { tally, logs, loadMs, exitCodes } = await rollingRestart('rr-drain:', 2500);
    console.log(`rolling restart with drain_delay_ms 2500, ${loadMs} ms of load: ${summary(tally)}`);
    expect(loadMs).toBeGreaterThanOrEqual(LOAD_MS);
    expect(tally.failed, tally.failed.slice(0, 5).join('\n')).toEqual([]);
    expect(tally.cutStreams, tally.cutStreams.slice(0, 5).join('\n')).toEqual([]);
    expect(tally.brokenConversations, tally.brokenConversations.slice(0, 5).join('\n')).toEqual([]);
    expect(tally.limitedOther).toEqual([]);
    expect(tally.limitedOk).toBe(RPM);
    expect(tally.limitedRefused).toBeGreaterThan(0);
    // Enough of each kind to mean something.
    expect(tally.requests).toBeGreaterThan(200);
    expect(tally.streams).toBeGreaterThan(15);
    expect(tally.conversations).toBeGreaterThan(20);
    expect(exitCodes).toEqual([0, 0, 0]);
    for (const log of logs) {
      // The timeline, in order, with nothing cut at the deadline.
      const steps = ['drain: not ready', 'drain: stopped accepting', 'drain: every running request and stream finished', 'drain: closed'].map((s) => log.indexOf(s));
      expect(steps.every((at) => at >= 0), log.slice(-3000)).toBe(true);
      expect([...steps].sort((a, b) => a - b)).toEqual(steps);
      expect(log).not.toContain('drain: grace over');
      const notReady = JSON.parse(log.split('\n').find((l) => l.includes('drain: not ready'))!) as { drainDelayMs: number };
      const stoppedAt = JSON.parse(log.split('\n').find((l) => l.includes('drain: stopped accepting'))!) as { ms: number };
      expect(notReady.drainDelayMs).toBe(2500);
      expect(stoppedAt.ms).toBeGreaterThanOrEqual(2500);
    }
  }, 120_000);

  it('with drain_delay_ms: 0 the same restart loses requests', async () => {
    const { tally, loadMs } = await rollingRestart('rr-nodrain:', 0);
    console.log(`rolling restart with drain_delay_ms 0, ${loadMs} ms of load: ${summary(tally)}`);
    const lost = tally.failed.length + tally.cutStreams.length + tally.brokenConversations.length + tally.limitedOther.length;
    expect(lost, summary(tally)).toBeGreaterThan(0);
    // Refused by the balancer (HAProxy's 503), not a gateway error.
    expect([...tally.failed, ...tally.cutStreams, ...tally.brokenConversations].join('\n')).toMatch(/503|fetch failed|socket/);
  }, 120_000);
});
