// Keys, limits, budgets and model access through the official SDKs, against the real gateway (memory
// state backend) in front of the scripted upstream: refusals arrive in each SDK's own error classes
// with the headers it reads, limited keys get the vendors' rate-limit headers on every answer (JSON
// and SSE), models outside a key's allow-list are not found (and nothing goes upstream), a key sees
// only its own usage and models, and the state store being away is a clear 503.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildApp, type BuiltApp } from '../../../src/app.js';
import { resolveConfig } from '../../../src/config/load-config.js';
import { startScriptedUpstream, type Reply, type ScriptedUpstream } from '../../support/scripted-upstream/index.js';
import { captureLogger, type CapturedLogger } from '../../unit/observability/support.js';

const KEYS = {
  limited: 'sk-sy-limited-0001',
  tokens: 'sk-sy-tokens-0002',
  budget: 'sk-sy-budget-0003',
  alice: 'sk-sy-alice-0004',
  bob: 'sk-sy-bob-0005',
  ops: 'sk-sy-ops-0006',
  single: 'sk-sy-single-0007',
} as const;

/** 12 input + 9 output tokens: 12×$3 + 9×$15 per million = 171 µUSD on the priced aliases. */
const OK: Reply = { kind: 'reply', blocks: [{ type: 'text', text: 'Hello.' }], usage: { input: 12, output: 9 } };
const COST_USD = 171e-6;
const PRICE = { input: 3, output: 15 };

function rawConfig(upstreamUrl: string, state?: Record<string, unknown>) {
  return {
    server: { host: '127.0.0.1', port: 0 },
    log: { level: 'info' },
    ...(state ? { state } : {}),
    auth: {
      keys: [
        { name: 'limited', key: KEYS.limited, team: 'research', models: ['via-*'], limits: { rpm: 2 } },
        { name: 'tokens', key: KEYS.tokens, limits: { tpm: 30 } },
        { name: 'budget', key: KEYS.budget, team: 'research', budget: { usd: 0.0004, period: 'day' } },
        { name: 'alice', key: KEYS.alice, team: 'research', models: ['via-messages', 'via-responses'], limits: { rpm: 1000 } },
        { name: 'bob', key: KEYS.bob, models: ['via-responses', 'via-chat'] },
        { name: 'single', key: KEYS.single, limits: { concurrency: 1 } },
      ],
      teams: { research: { budget: { usd: 100, period: 'month' } } },
      admin_keys: [{ name: 'ops', key: KEYS.ops }],
    },
    providers: {
      'up-messages': { protocol: 'messages', base_url: upstreamUrl, api_key: 'upstream-key-m', retry: { attempts: 1 } },
      'up-responses': { protocol: 'responses', base_url: upstreamUrl + '/v1', api_key: 'upstream-key-r', retry: { attempts: 1 } },
      'up-chat': { protocol: 'chat', base_url: upstreamUrl + '/v1', api_key: 'upstream-key-c', retry: { attempts: 1 } },
    },
    models: {
      'via-messages': { provider: 'up-messages', model: 'claude-upstream-1', price: PRICE },
      'via-responses': { provider: 'up-responses', model: 'gpt-upstream-1', price: PRICE },
      'via-chat': { provider: 'up-chat', model: 'chat-upstream-1', price: PRICE },
    },
  };
}

async function listen(built: BuiltApp): Promise<string> {
  await built.app.listen({ host: '127.0.0.1', port: 0 });
  built.setReady(true);
  const address = built.app.server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}

let upstream: ScriptedUpstream;
let gateway: BuiltApp;
let log: CapturedLogger;
let url: string;
const anthropic = (key: string) => new Anthropic({ baseURL: url, apiKey: key, maxRetries: 0, timeout: 10_000 });
const openai = (key: string) => new OpenAI({ baseURL: url + '/v1', apiKey: key, maxRetries: 0, timeout: 10_000 });
const hello = { max_tokens: 64, messages: [{ role: 'user' as const, content: 'Say hello' }] };

beforeAll(async () => {
  upstream = await startScriptedUpstream({ defaultReply: () => OK });
  log = captureLogger('info');
  gateway = buildApp(resolveConfig(rawConfig(upstream.url), 'test'), { logger: log.logger });
  url = await listen(gateway);
});

afterAll(async () => {
  await gateway?.app.close();
  await upstream?.close();
});

let sentBefore = 0;
beforeEach(() => {
  sentBefore = upstream.received.length;
});

/** The message of an Anthropic error body as the gateway wrote it (the SDK's own message wraps it). */
function bodyMessage(err: unknown): string {
  return (err as { error: { error: { message: string } } }).error.error.message;
}

async function getJson(path: string, key: string): Promise<{ status: number; body: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const res = await fetch(url + path, { headers: { authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(10_000) });
  return { status: res.status, body: await res.json() };
}

describe('rate limits through the SDKs', () => {
  it('rpm: two answers with the Anthropic headers, then a RateLimitError with retry-after, nothing sent upstream', async () => {
    const client = anthropic(KEYS.limited);
    const remaining: string[] = [];
    for (let i = 0; i < 2; i++) {
      const { response } = await client.messages.create({ model: 'via-messages', ...hello }).withResponse();
      expect(response.headers.get('anthropic-ratelimit-requests-limit')).toBe('2');
      remaining.push(response.headers.get('anthropic-ratelimit-requests-remaining')!);
      const reset = Date.parse(response.headers.get('anthropic-ratelimit-requests-reset')!);
      expect(reset).toBeGreaterThan(Date.now());
      expect(reset).toBeLessThanOrEqual(Date.now() + 62_000);
    }
    expect(remaining).toEqual(['1', '0']);
    const sent = upstream.received.length;

    const err = await client.messages.create({ model: 'via-messages', ...hello }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.RateLimitError);
    const e = err as InstanceType<typeof Anthropic.RateLimitError>;
    expect(e.status).toBe(429);
    expect((e.error as { error: { type: string } }).error.type).toBe('rate_limit_error');
    expect(bodyMessage(e)).toContain('rate limit of key "limited" reached: 2 requests per minute');
    const retryAfter = Number(e.headers?.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(61);
    expect(e.headers?.get('anthropic-ratelimit-requests-remaining')).toBe('0');
    expect(upstream.received.length).toBe(sent);

    // The same key at the Responses door: OpenAI's class, code and headers.
    const oerr = await openai(KEYS.limited).responses.create({ model: 'via-responses', input: 'hi', store: false }).catch((x: unknown) => x);
    expect(oerr).toBeInstanceOf(OpenAI.RateLimitError);
    const o = oerr as InstanceType<typeof OpenAI.RateLimitError>;
    expect(o.code).toBe('rate_limit_exceeded');
    expect(Number(o.headers?.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(o.headers?.get('x-ratelimit-limit-requests')).toBe('2');
    expect(o.headers?.get('x-ratelimit-remaining-requests')).toBe('0');
    // A reset duration the OpenAI clients parse (Go style: `59.8s`, `1m0s`, `250ms`).
    expect(o.headers?.get('x-ratelimit-reset-requests')).toMatch(/^(\d+m)?\d+(\.\d+)?s$|^\d+ms$/);
    expect(upstream.received.length).toBe(sent);
  });

  it('tpm: tokens are debited when the answer ends; the key stops within one answer of its limit', async () => {
    const client = anthropic(KEYS.tokens);
    let answered = 0;
    let refusal: unknown;
    for (let i = 0; i < 5 && refusal === undefined; i++) {
      try {
        const { response } = await client.messages.create({ model: 'via-messages', ...hello }).withResponse();
        expect(response.headers.get('anthropic-ratelimit-tokens-limit')).toBe('30');
        answered++;
      } catch (err) {
        refusal = err;
      }
    }
    // 0 and 21 tokens used: admitted; 42 ≥ 30: refused. Never more than limit + one answer (21).
    expect(answered).toBe(2);
    expect(refusal).toBeInstanceOf(Anthropic.RateLimitError);
    expect(bodyMessage(refusal)).toContain('30 tokens per minute');
    const usage = await getJson('/v1/usage', KEYS.tokens);
    const tpm = usage.body.limits.find((l: { limit: string }) => l.limit === 'tpm');
    expect(tpm).toMatchObject({ scope: 'key', owner: 'tokens', max: 30, used: 42, remaining: 0 });
    expect(tpm.used).toBeLessThanOrEqual(30 + 21);
  });

  it('streams of a limited key carry the headers too (both doors)', async () => {
    const m = await fetch(url + '/v1/messages', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': KEYS.alice, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'via-messages', stream: true, ...hello }),
      signal: AbortSignal.timeout(10_000),
    });
    expect(m.headers.get('content-type')).toContain('text/event-stream');
    expect(m.headers.get('anthropic-ratelimit-requests-limit')).toBe('1000');
    expect(Number(m.headers.get('anthropic-ratelimit-requests-remaining'))).toBeLessThan(1000);
    expect(await m.text()).toContain('message_stop');

    const stream = await openai(KEYS.alice).responses.create({ model: 'via-responses', input: 'hi', stream: true, store: false }).withResponse();
    expect(stream.response.headers.get('x-ratelimit-limit-requests')).toBe('1000');
    for await (const _ of stream.data) {
      // drain
    }
  });

  it('concurrency: a slot is held while a stream runs and given back when the caller leaves mid-stream', async () => {
    upstream.enqueue({ kind: 'stall', afterBlocks: [{ type: 'text', text: 'Thinking…' }], ms: 8_000 });
    const leaving = new AbortController();
    const first = await fetch(url + '/v1/messages', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': KEYS.single, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'via-messages', stream: true, ...hello }),
      signal: leaving.signal,
    });
    expect(first.status).toBe(200);
    const reader = first.body!.getReader();
    await reader.read();
    // The stream is open: a second request of the key is refused.
    const second = await anthropic(KEYS.single).messages.create({ model: 'via-messages', ...hello }).catch((x: unknown) => x);
    expect(second).toBeInstanceOf(Anthropic.RateLimitError);
    expect(bodyMessage(second)).toContain('1 concurrent requests');
    // When a slot is likely to free (src/access/lease-wait.ts), never the lease's lifetime (about an hour).
    const retryAfter = Number((second as InstanceType<typeof Anthropic.APIError>).headers?.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(10);
    leaving.abort();
    await reader.cancel().catch(() => undefined);
    // The lease comes back once the gateway has wound the aborted stream down (well before the stall ends).
    const t0 = Date.now();
    let status = 0;
    while (Date.now() - t0 < 5_000) {
      const r = await anthropic(KEYS.single).messages.create({ model: 'via-messages', ...hello }).then(() => 200, (e: { status?: number }) => e.status ?? 0);
      status = r;
      if (status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(status).toBe(200);
    expect(Date.now() - t0).toBeLessThan(5_000);
  });

  it('a key without limits gets no rate-limit headers', async () => {
    const { response } = await anthropic(KEYS.bob).messages.create({ model: 'via-chat', ...hello }).withResponse();
    expect([...response.headers.keys()].filter((h) => h.includes('ratelimit'))).toEqual([]);
  });
});

describe('budgets', () => {
  it('stops a key at its budget within one answer, as billing_error (Messages) and insufficient_quota (Responses)', async () => {
    const client = anthropic(KEYS.budget);
    let answered = 0;
    let refusal: unknown;
    for (let i = 0; i < 8 && refusal === undefined; i++) {
      try {
        await client.messages.create({ model: 'via-messages', ...hello });
        answered++;
      } catch (err) {
        refusal = err;
      }
    }
    // $0.0004 at $0.000171 an answer: spent 0, 171, 342 µUSD are under budget; 513 is not.
    expect(answered).toBe(3);
    expect(refusal).toBeInstanceOf(Anthropic.APIError);
    const e = refusal as InstanceType<typeof Anthropic.APIError>;
    expect(e.status).toBe(402);
    expect((e.error as { error: { type: string } }).error.type).toBe('billing_error');
    expect(bodyMessage(e)).toMatch(/^the daily budget of key "budget" \(\$0\.0004\) is used up \(spent \$0\.000513\); it resets at \d{4}-\d{2}-\d{2}T00:00:00Z$/);

    const oerr = await openai(KEYS.budget).responses.create({ model: 'via-responses', input: 'hi', store: false }).catch((x: unknown) => x);
    expect(oerr).toBeInstanceOf(OpenAI.RateLimitError);
    expect((oerr as InstanceType<typeof OpenAI.RateLimitError>).code).toBe('insufficient_quota');

    const usage = await getJson('/v1/usage', KEYS.budget);
    const own = usage.body.spend.find((s: { scope: string }) => s.scope === 'key');
    expect(own.budget_usd).toBe(0.0004);
    expect(own.usd).toBeCloseTo(3 * COST_USD, 9);
    expect(own.usd - own.budget_usd).toBeLessThan(COST_USD);
    expect(own.remaining_usd).toBe(0);
  });

  it('puts the cost in the request log line, with the key and team names and never the key', () => {
    const lines = log.lines().filter((l) => l.msg === 'request finished' && l.key === 'budget' && l.status === 200);
    expect(lines.length).toBe(3);
    for (const l of lines) {
      expect(l.cost_usd).toBeCloseTo(COST_USD, 9);
      expect(l.team).toBe('research');
    }
    for (const k of Object.values(KEYS)) expect(log.raw()).not.toContain(k);
  });

  it('counts cost, requests and tokens by key in the metrics, and exports budgets', async () => {
    const text = await gateway.ctx.metricsText();
    const cost = text.split('\n').find((l) => l.startsWith('switchyard_cost_usd_total{key="budget",team="research",model="via-messages"}'));
    expect(Number(cost?.split(' ').pop())).toBeCloseTo(3 * COST_USD, 9);
    expect(text).toMatch(/switchyard_key_requests_total\{key="budget",team="research",status_class="4xx"\} 2/);
    expect(text).toMatch(/switchyard_key_tokens_total\{key="budget",team="research",kind="input"\} 36/);
    expect(text).toContain('switchyard_budget_usd{scope="key",owner="budget"} 0.0004');
    expect(text).toContain('switchyard_budget_usd{scope="team",owner="research"} 100');
    expect(text).toMatch(/switchyard_budget_spent_usd\{scope="key",owner="budget"\} 0\.000513/);
  });
});

describe('model access', () => {
  it('a model outside the allow-list is not found at both doors, before anything goes upstream', async () => {
    const err = await anthropic(KEYS.alice).messages.create({ model: 'via-chat', ...hello }).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(Anthropic.NotFoundError);
    expect((err as InstanceType<typeof Anthropic.NotFoundError>).error).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
    expect(bodyMessage(err)).toBe('model "via-chat" is not available: not configured on this gateway, or not allowed for this API key');

    const oerr = await openai(KEYS.bob).responses.create({ model: 'via-messages', input: 'hi' }).catch((x: unknown) => x);
    expect(oerr).toBeInstanceOf(OpenAI.NotFoundError);
    expect(oerr).toMatchObject({ status: 404, code: 'model_not_found', param: 'model' });
    expect((oerr as Error).message).toContain('via-messages');
    expect(upstream.received.length).toBe(sentBefore);
  });

  it('count_tokens obeys the same rule', async () => {
    const err = await anthropic(KEYS.alice).messages.countTokens({ model: 'via-chat', messages: hello.messages }).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(Anthropic.NotFoundError);
    const ok = await anthropic(KEYS.alice).messages.countTokens({ model: 'via-messages', messages: hello.messages });
    expect(ok.input_tokens).toBeGreaterThan(0);
  });

  it('/v1/models lists only what the key may use, and /v1/models/{id} hides the rest', async () => {
    const a = await anthropic(KEYS.alice).models.list();
    expect(a.data.map((m) => m.id)).toEqual(['via-messages', 'via-responses']);
    const b = await openai(KEYS.bob).models.list();
    expect(b.data.map((m) => m.id)).toEqual(['via-responses', 'via-chat']);
    const hidden = await openai(KEYS.bob).models.retrieve('via-messages').catch((x: unknown) => x);
    expect(hidden).toBeInstanceOf(OpenAI.NotFoundError);
    expect((await openai(KEYS.bob).models.retrieve('via-chat')).id).toBe('via-chat');
  });
});

describe('isolation and the usage views', () => {
  // Stored responses are owned by the key that made them (GET/DELETE/input_items answer 404 to any
  // other key): test/unit/state/stored-response-routes.test.ts, on the same gateway routes.
  it("a key never sees another key's usage", async () => {
    const alice = await getJson('/v1/usage', KEYS.alice);
    expect(alice.status).toBe(200);
    expect(alice.body.key).toBe('alice');
    expect(alice.body.team).toBe('research');
    const owners = new Set([...alice.body.limits, ...alice.body.spend].map((x: { owner: string }) => x.owner));
    expect([...owners].sort()).toEqual(['alice', 'research']);
    expect(JSON.stringify(alice.body)).not.toContain('bob');
    expect(alice.body.limits).toEqual([expect.objectContaining({ scope: 'key', owner: 'alice', limit: 'rpm', max: 1000 })]);
    const bob = await getJson('/v1/usage', KEYS.bob);
    expect(bob.body).toMatchObject({ key: 'bob', team: null, limits: [] });
    expect(JSON.stringify(bob.body)).not.toContain('alice');
  });

  it('/admin/usage shows every key and team to admin keys only', async () => {
    const admin = await getJson('/admin/usage', KEYS.ops);
    expect(admin.status).toBe(200);
    expect(admin.body.keys.map((k: { key: string }) => k.key)).toEqual(['limited', 'tokens', 'budget', 'alice', 'bob', 'single']);
    expect(admin.body.teams.map((t: { team: string }) => t.team)).toEqual(['research']);
    const research = admin.body.teams[0].spend;
    expect(research.usd).toBeGreaterThan(3 * COST_USD - 1e-9);
    expect(admin.body.models.find((m: { model: string }) => m.model === 'via-messages').usd).toBeGreaterThan(0);

    const refused = await getJson('/admin/usage', KEYS.alice);
    expect(refused.status).toBe(403);
    expect(refused.body.error.type).toBe('invalid_request_error');
    expect((await getJson('/v1/usage', KEYS.ops)).status).toBe(403);
    // Admin keys manage; they do not call models, nor count tokens for them.
    expect(await anthropic(KEYS.ops).messages.create({ model: 'via-messages', ...hello }).catch((x: unknown) => x)).toBeInstanceOf(Anthropic.PermissionDeniedError);
    expect(await anthropic(KEYS.ops).messages.countTokens({ model: 'via-messages', messages: hello.messages }).catch((x: unknown) => x)).toBeInstanceOf(Anthropic.PermissionDeniedError);
    expect((await getJson('/v1/usage', 'sk-sy-wrong')).status).toBe(401);
  });
});

describe('state store unavailable', () => {
  let down: BuiltApp;
  let downUrl: string;
  beforeAll(async () => {
    // A Redis backend on a loopback port nothing listens on; the gateway may start without it.
    const { createServer } = await import('node:net');
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    down = buildApp(resolveConfig(rawConfig(upstream.url, { backend: 'redis', url: `redis://127.0.0.1:${port}`, required: false, op_timeout_ms: 300 }), 'test'), {
      logger: captureLogger('error').logger,
    });
    downUrl = await listen(down);
  });
  afterAll(async () => {
    await down?.app.close();
  });

  it('a limited key gets 503 "state store unavailable" in its door\'s envelope; a key without limits is served', async () => {
    const a = await new Anthropic({ baseURL: downUrl, apiKey: KEYS.limited, maxRetries: 0, timeout: 10_000 }).messages.create({ model: 'via-messages', ...hello }).catch((x: unknown) => x);
    expect(a).toBeInstanceOf(Anthropic.InternalServerError);
    expect(a).toMatchObject({ status: 503, error: { type: 'error', error: { type: 'api_error', message: "state store unavailable: cannot check this key's limits right now; retry shortly" } } });
    const o = await new OpenAI({ baseURL: downUrl + '/v1', apiKey: KEYS.alice, maxRetries: 0, timeout: 10_000 }).responses.create({ model: 'via-responses', input: 'hi', store: false }).catch((x: unknown) => x);
    expect(o).toBeInstanceOf(OpenAI.InternalServerError);
    expect(o).toMatchObject({ status: 503, code: 'service_unavailable' });
    expect((o as Error).message).toContain('state store unavailable');
    // bob has no limits and no budget: admission makes no state call, so the answer comes.
    const ok = await new Anthropic({ baseURL: downUrl, apiKey: KEYS.bob, maxRetries: 0, timeout: 10_000 }).messages.create({ model: 'via-chat', ...hello });
    expect(ok.content[0]).toMatchObject({ type: 'text', text: 'Hello.' });
  });
});
