// The real gateway as a Prometheus scrape target: buildApp (through test/support/gateway-harness.ts)
// in front of the scripted upstream, plus a retried provider and a dead one (fallback, circuit
// breaker), and mixed traffic through both front doors and both lanes, including failures.
// Requests are sent one after another, so the scripted upstream's FIFO replies line up with them.
import { startHarness, type Harness } from '../gateway-harness.js';
import type { Reply } from '../scripted-upstream/index.js';

const UPSTREAM_MODEL = { messages: 'claude-upstream-1', responses: 'gpt-upstream-1', chat: 'chat-upstream-1' } as const;
type UpstreamProtocol = keyof typeof UPSTREAM_MODEL;

const OK: Reply = {
  kind: 'reply',
  blocks: [
    { type: 'reasoning', text: 'The caller wants a greeting.', opaque: 'opaque-reasoning-state' },
    { type: 'text', text: 'Hello from the scripted upstream.' },
  ],
  usage: { input: 12, output: 9, cacheRead: 5, cacheWrite: 2, reasoning: 3 },
};
/** A stream with a visible pause between events (the event-gap histogram's tail). */
const SLOW: Reply = { kind: 'stall', afterBlocks: [{ type: 'text', text: 'Hello, slowly.' }], ms: 150 };
/** Long enough that the caller leaves first. */
const STALL: Reply = { kind: 'stall', afterBlocks: [{ type: 'text', text: 'You will not see the end of this.' }], ms: 5_000 };

export interface GatewayTarget {
  /** host:port of the gateway (its /metrics is the scrape target). */
  address: string;
  /** One round of mixed traffic; every request is awaited in turn. */
  round(n: number): Promise<void>;
  close(): Promise<void>;
}

/** `deadPort`: a loopback port nothing listens on (connection refused → bad_gateway). */
export async function startGatewayTarget(deadPort: number): Promise<GatewayTarget> {
  const h: Harness = await startHarness({
    config: (base) => {
      const provider = (protocol: UpstreamProtocol) => ({
        protocol,
        base_url: protocol === 'messages' ? base : base + '/v1',
        api_key: `upstream-key-${protocol}`,
        retry: { attempts: 1 },
      });
      // The caller's key ('caller-key', the harness's) is limited and budgeted far above this
      // traffic, and the aliases are priced: the key, spend and budget series exist.
      const price = { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 };
      return {
        auth: {
          keys: [{ name: 'dashboards', key: 'caller-key', team: 'platform', limits: { rpm: 100_000, tpm: 100_000_000, concurrency: 64 }, budget: { usd: 1_000, period: 'month' } }],
          teams: { platform: { budget: { usd: 10_000, period: 'month' } } },
        },
        // Prometheus scrapes the API port here; with keys and no admin keys that must be said (R4).
        metrics: { public: true },
        providers: {
          'up-messages': provider('messages'),
          'up-responses': provider('responses'),
          'up-chat': provider('chat'),
          dead: {
            protocol: 'chat',
            base_url: `http://127.0.0.1:${deadPort}/v1`,
            api_key: 'dead-key',
            retry: { attempts: 2, backoff_ms: 1, max_backoff_ms: 2 },
            cooldown: { failures: 1, cooldown_ms: 60_000 },
          },
          // Same upstream, but retried: a scripted 503 first, then the answer.
          'up-chat-retrying': {
            ...provider('chat'),
            retry: { attempts: 2, backoff_ms: 1, max_backoff_ms: 2 },
            cooldown: { failures: 1_000 },
          },
          demo: { protocol: 'demo' },
        },
        models: {
          'via-messages': { provider: 'up-messages', model: UPSTREAM_MODEL.messages, price },
          'via-responses': { provider: 'up-responses', model: UPSTREAM_MODEL.responses, price },
          'via-chat': { provider: 'up-chat', model: UPSTREAM_MODEL.chat, price },
          flaky: { strategy: 'fallback', targets: [{ provider: 'dead', model: 'dead-model' }, { provider: 'up-chat', model: UPSTREAM_MODEL.chat }] },
          retrying: { provider: 'up-chat-retrying', model: UPSTREAM_MODEL.chat },
          demo: { provider: 'demo', model: 'demo' },
        },
      };
    },
  });

  const send = async (door: 'messages' | 'responses', body: Record<string, unknown>, leaveEarly = false): Promise<number> => {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), 15_000);
    try {
      const res = await fetch(h.url + (door === 'messages' ? '/v1/messages' : '/v1/responses'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', authorization: 'Bearer caller-key' },
        body: JSON.stringify(body),
        signal: abort.signal,
      });
      if (leaveEarly && res.body) {
        // Read the first frames, then hang up mid-stream.
        const reader = res.body.getReader();
        await reader.read();
        abort.abort();
        await reader.cancel().catch(() => undefined);
        return res.status;
      }
      await res.text();
      return res.status;
    } catch (err) {
      if (leaveEarly) return 0;
      throw err;
    } finally {
      clearTimeout(timer);
    }
  };
  const messages = (model: string, stream: boolean, extra: Record<string, unknown> = {}, leaveEarly = false) =>
    send('messages', { model, max_tokens: 256, stream, messages: [{ role: 'user', content: 'Say hello' }], ...extra }, leaveEarly);
  const responses = (model: string, stream: boolean, extra: Record<string, unknown> = {}) =>
    send('responses', { model, stream, store: false, input: 'Say hello', ...extra });
  const next = (reply: Reply) => h.upstream.enqueue(reply);

  const addr = h.gateway.app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;

  return {
    address: `127.0.0.1:${port}`,
    async round(n) {
      // Pass-through lane, both doors, streamed and not.
      next(OK);
      await messages('via-messages', true);
      next(OK);
      await messages('via-messages', false);
      next(SLOW);
      await responses('via-responses', true);
      next(OK);
      await responses('via-responses', false);
      // Translation lane, every direction; fields the target cannot express become warnings.
      next(OK);
      await messages('via-chat', true, { top_k: 5, thinking: { type: 'enabled', budget_tokens: 1024 } });
      next(SLOW);
      await messages('via-responses', true, { top_k: 5 });
      next(OK);
      await responses('via-messages', true, { reasoning: { effort: 'low', summary: 'auto' } });
      next(OK);
      await responses('via-chat', false, { reasoning: { effort: 'low', summary: 'auto' } });
      // Upstream failures: before the first byte (a real status) and mid-stream (an error event).
      next({ kind: 'http-error', status: 500 });
      await responses('via-chat', true);
      next({ kind: 'http-error', status: 429, retryAfter: '0' });
      await messages('via-messages', false);
      next({ kind: 'fail-mid-stream', blocks: [{ type: 'text', text: 'Half an answer' }] });
      await messages('via-chat', true);
      // A retry on the same deployment after an overloaded answer.
      next({ kind: 'http-error', status: 503 });
      next(OK);
      await messages('retrying', true);
      // Dead deployment: connection refused, its circuit opens, the fallback answers (later rounds
      // skip it while it cools down).
      next(OK);
      await messages('flaky', true);
      // The caller leaves a stream that is still running.
      next(STALL);
      await messages('via-messages', true, {}, true);
      // Caller mistakes and the in-process demo provider.
      await messages('no-such-model-' + n, false);
      await send('messages', { model: 'via-messages', messages: 'not a list' });
      await messages('demo', true);
      await responses('demo', false);
    },
    close: () => h.close(),
  };
}
