// Retries and fallback, only before the first byte reached the caller: which failures are retried,
// retry-after and the budget, fallback across protocols (each attempt re-encoded for its target), no
// retry once streaming started, reasoning-family preference, and the x-switchyard-* headers.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Harness } from '../../support/gateway-harness.js';
import { agentLoopReply, type Reply } from '../../support/scripted-upstream/index.js';
import { postSse } from '../../unit/support/raw-http.js';
import { generations, provider, routerHarness, user } from './support.js';

const text = (t: string): Reply => ({ kind: 'reply', blocks: [{ type: 'text', text: t }] });
const retry = { attempts: 3, backoff_ms: 5, max_backoff_ms: 20, budget_ms: 5000 };

describe('router: retries and fallback', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await routerHarness((url) => ({
      providers: {
        'm-retry': provider('messages', url, { retry, timeouts: { first_byte_ms: 200 } }),
        'r-retry': provider('responses', url, { retry, timeouts: { first_byte_ms: 200 } }),
        'm-once': provider('messages', url),
        'r-once': provider('responses', url),
        'm-twice': provider('messages', url, { retry: { ...retry, attempts: 2 } }),
        'r-budget': provider('responses', url, { retry: { attempts: 10, backoff_ms: 100, max_backoff_ms: 100, budget_ms: 250 } }),
      },
      models: {
        'retry-m': { provider: 'm-retry', model: 'claude-retry' },
        'retry-r': { provider: 'r-retry', model: 'gpt-retry' },
        'cross-m': { targets: [{ provider: 'm-once', model: 'claude-first' }, { provider: 'r-once', model: 'gpt-second' }] },
        'cross-r': { targets: [{ provider: 'r-once', model: 'gpt-first' }, { provider: 'm-once', model: 'claude-second' }] },
        counted: { targets: [{ provider: 'm-twice', model: 'claude-twice' }, { provider: 'r-once', model: 'gpt-last' }] },
        budget: { provider: 'r-budget', model: 'gpt-budget' },
        // Responses first in the file: a conversation carrying Anthropic reasoning must still start on Messages.
        'carry-r-first': { targets: [{ provider: 'r-once', model: 'gpt-carry' }, { provider: 'm-once', model: 'claude-carry' }] },
        'carry-m-first': { targets: [{ provider: 'm-once', model: 'claude-carry' }, { provider: 'r-once', model: 'gpt-carry' }] },
        'only-r': { provider: 'r-once', model: 'gpt-only' },
      },
    }));
  });
  afterAll(async () => {
    await h.close();
  });
  beforeEach(() => {
    h.upstream.received.length = 0;
  });

  describe.each([
    ['pass-through', 'retry-m', 'messages'],
    ['translation', 'retry-r', 'responses'],
  ] as const)('Messages caller, %s lane', (_lane, model, upstreamProtocol) => {
    it.each([408, 409, 429, 500, 502, 503, 529])('retries HTTP %i', async (status) => {
      h.upstream.enqueue({ kind: 'http-error', status }, text(`after ${status}`));
      const { data, response } = await h.anthropic.messages.create({ model, max_tokens: 50, messages: [user('hi')] }).withResponse();
      expect(data.content).toEqual([expect.objectContaining({ text: `after ${status}` })]);
      expect(response.headers.get('x-switchyard-attempts')).toBe('2');
      const seen = generations(h);
      expect(seen).toHaveLength(2);
      expect(seen.every((r) => r.protocol === upstreamProtocol)).toBe(true);
    });

    it('retries a connection reset before the headers', async () => {
      h.upstream.enqueue({ kind: 'reset-before-headers' }, { kind: 'reset-before-headers' }, text('third time'));
      const msg = await h.anthropic.messages.stream({ model, max_tokens: 50, messages: [user('hi')] }).finalMessage();
      expect(msg.content).toEqual([expect.objectContaining({ text: 'third time' })]);
      expect(generations(h)).toHaveLength(3);
    });

    it('retries when the first byte does not come within first_byte_ms', async () => {
      h.upstream.enqueue({ kind: 'delay-headers', ms: 4000, then: text('too late') }, text('in time'));
      const t0 = Date.now();
      const msg = await h.anthropic.messages.create({ model, max_tokens: 50, messages: [user('hi')] });
      const elapsed = Date.now() - t0;
      expect(msg.content).toEqual([expect.objectContaining({ text: 'in time' })]);
      // undici's timers tick every ~0.5 s: a 200 ms limit fires within about a second
      expect(elapsed).toBeGreaterThanOrEqual(190);
      expect(elapsed).toBeLessThan(2500);
      expect(generations(h)).toHaveLength(2);
    });

    it.each([
      [400, 400],
      [401, 502], // the upstream refused our credentials: the gateway's fault, not the caller's
      [403, 502],
      [404, 404],
    ])('does not retry HTTP %i (caller gets %i)', async (status, callerStatus) => {
      h.upstream.enqueue({ kind: 'http-error', status }, text('must not be used'));
      await expect(h.anthropic.messages.create({ model, max_tokens: 50, messages: [user('hi')] })).rejects.toMatchObject({ status: callerStatus });
      expect(generations(h)).toHaveLength(1);
      // drain the unused reply so later tests start from an empty queue
      await h.anthropic.messages.create({ model, max_tokens: 50, messages: [user('drain')] });
    });
  });

  it('does not retry an exhausted quota (HTTP 429 insufficient_quota) or a context overflow', async () => {
    h.upstream.enqueue({ kind: 'http-error', status: 429, type: 'insufficient_quota', code: 'insufficient_quota', message: 'You exceeded your current quota' });
    await expect(h.openai.responses.create({ model: 'retry-r', input: 'hi', store: false })).rejects.toMatchObject({ status: 429, code: 'insufficient_quota' });
    expect(generations(h)).toHaveLength(1);
    h.upstream.enqueue({ kind: 'http-error', status: 500, message: 'This model maximum context length is 8192 tokens' });
    await expect(h.openai.responses.create({ model: 'retry-r', input: 'hi', store: false })).rejects.toMatchObject({ status: 400 });
    expect(generations(h)).toHaveLength(2);
  });

  it('honours retry-after: the retry waits at least as long as asked', async () => {
    h.upstream.enqueue({ kind: 'http-error', status: 429, retryAfter: '1' }, text('patient'));
    const t0 = Date.now();
    const r = await h.openai.responses.create({ model: 'retry-r', input: 'hi', store: false });
    expect(r.output_text).toBe('patient');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
    expect(generations(h)).toHaveLength(2);
  });

  it('gives up at once when retry-after is beyond the budget, and passes it on to the caller', async () => {
    h.upstream.enqueue({ kind: 'http-error', status: 429, retryAfter: '30' });
    const t0 = Date.now();
    const err = await h.anthropic.messages.create({ model: 'retry-r', max_tokens: 10, messages: [user('hi')] }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 429 });
    expect((err as { headers: Headers }).headers.get('retry-after')).toBe('30');
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(generations(h)).toHaveLength(1);
  });

  it('backs off within the total budget', async () => {
    h.upstream.setDefault(() => ({ kind: 'http-error', status: 503 }));
    try {
      const t0 = Date.now();
      await expect(h.openai.responses.create({ model: 'budget', input: 'hi', store: false })).rejects.toMatchObject({ status: 503 });
      const elapsed = Date.now() - t0;
      // backoff 50–100 ms per step (jittered), budget 250 ms: 3 to 6 attempts of the 10 allowed on an idle
      // machine; a loaded one spends part of the budget on the attempts themselves, so at least one retry.
      const n = generations(h).length;
      expect(n).toBeGreaterThanOrEqual(2);
      expect(n).toBeLessThanOrEqual(6);
      expect(elapsed).toBeGreaterThanOrEqual(100);
      expect(elapsed).toBeLessThan(1000);
    } finally {
      h.upstream.setDefault(agentLoopReply);
    }
  });

  it('counts retries and fallbacks in x-switchyard-attempts and names the deployment that answered', async () => {
    h.upstream.enqueue({ kind: 'http-error', status: 500 }, { kind: 'http-error', status: 503 }, text('third'));
    const { data, response } = await h.anthropic.messages.create({ model: 'counted', max_tokens: 10, messages: [user('hi')] }).withResponse();
    expect(data.model).toBe('counted');
    expect(response.headers.get('x-switchyard-attempts')).toBe('3');
    expect(response.headers.get('x-switchyard-provider')).toBe('r-once');
    expect(response.headers.get('x-switchyard-model')).toBe('gpt-last');
    expect(generations(h).map((r) => r.body.model)).toEqual(['claude-twice', 'claude-twice', 'gpt-last']);
  });

  describe('cross-protocol fallback', () => {
    it.each([true, false])('Messages caller (stream %s): Messages upstream 529, then a Responses upstream answers', async (stream) => {
      h.upstream.enqueue({ kind: 'http-error', status: 529 }, text('answered by responses'));
      const params = { model: 'cross-m', max_tokens: 200, system: 'Be brief.', messages: [user('Hello?')] };
      const msg = stream ? await h.anthropic.messages.stream(params).finalMessage() : await h.anthropic.messages.create(params);
      expect(msg.type).toBe('message');
      expect(msg.role).toBe('assistant');
      expect(msg.model).toBe('cross-m');
      expect(msg.stop_reason).toBe('end_turn');
      expect(msg.content).toEqual([expect.objectContaining({ type: 'text', text: 'answered by responses' })]);
      expect(msg.usage.output_tokens).toBeGreaterThan(0);
      const [first, second] = generations(h);
      expect(first!.protocol).toBe('messages');
      expect(first!.body).toMatchObject({ model: 'claude-first', max_tokens: 200, system: 'Be brief.' });
      expect(first!.stream).toBe(stream);
      expect(second!.protocol).toBe('responses');
      expect(second!.path).toBe('/v1/responses');
      expect(second!.body).toMatchObject({ model: 'gpt-second', instructions: 'Be brief.', max_output_tokens: 200 });
      expect(second!.body.messages).toBeUndefined();
      expect(JSON.stringify(second!.body.input)).toContain('Hello?');
      expect(generations(h)).toHaveLength(2);
    });

    it.each([true, false])('Responses caller (stream %s): Responses upstream 529, then a Messages upstream answers', async (stream) => {
      h.upstream.enqueue({ kind: 'http-error', status: 529 }, text('answered by messages'));
      const params = { model: 'cross-r', input: 'Hello?', instructions: 'Be brief.', max_output_tokens: 300, store: false };
      const resp = stream ? await h.openai.responses.stream(params).finalResponse() : await h.openai.responses.create(params);
      expect(resp.status).toBe('completed');
      expect(resp.model).toBe('cross-r');
      expect(resp.output_text).toBe('answered by messages');
      const [first, second] = generations(h);
      expect(first!.protocol).toBe('responses');
      expect(first!.body).toMatchObject({ model: 'gpt-first', input: 'Hello?', max_output_tokens: 300 });
      expect(second!.protocol).toBe('messages');
      expect(second!.path).toBe('/v1/messages');
      expect(second!.body).toMatchObject({ model: 'claude-second', max_tokens: 300 });
      expect(second!.body.input).toBeUndefined();
      expect(JSON.stringify(second!.body.messages)).toContain('Hello?');
      expect(JSON.stringify(second!.body.system)).toContain('Be brief.');
      expect(generations(h)).toHaveLength(2);
    });
  });

  describe('nothing is retried after the first byte', () => {
    it.each([
      ['pass-through', 'retry-m'],
      ['translation', 'retry-r'],
    ])('Messages caller, %s: reset mid-stream → `event: error`, one upstream request', async (_lane, model) => {
      h.upstream.enqueue({ kind: 'reset-mid-stream', blocks: [{ type: 'text', text: 'partial answer' }] }, text('must not be used'));
      const events = await postSse(h.url + '/v1/messages', { model, max_tokens: 50, stream: true, messages: [user('hi')] });
      const names = events.map((e) => e.event);
      expect(names[0]).toBe('message_start');
      expect(names).toContain('content_block_delta');
      expect(names[names.length - 1]).toBe('error');
      expect(names).not.toContain('message_stop');
      expect(JSON.parse(events[events.length - 1]!.data)).toMatchObject({ type: 'error', error: { type: expect.any(String) } });
      expect(generations(h)).toHaveLength(1);
      await drain(h);
    });

    it.each([
      ['pass-through', 'retry-r'],
      ['translation', 'retry-m'],
    ])('Responses caller, %s: reset mid-stream → `error` then `response.failed`, one upstream request', async (_lane, model) => {
      h.upstream.enqueue({ kind: 'reset-mid-stream', blocks: [{ type: 'text', text: 'partial answer' }] }, text('must not be used'));
      const events = await postSse(h.url + '/v1/responses', { model, input: 'hi', stream: true, store: false });
      const types = events.filter((e) => e.data.startsWith('{')).map((e) => JSON.parse(e.data).type as string);
      expect(types[0]).toBe('response.created');
      expect(types).toContain('response.output_text.delta');
      expect(types.slice(-2)).toEqual(['error', 'response.failed']);
      expect(types).not.toContain('response.completed');
      expect(generations(h)).toHaveLength(1);
      await drain(h);
    });

    it.each([
      ['pass-through', 'retry-m'],
      ['translation (upstream streamed)', 'retry-r'],
    ])('a non-streamed caller is still retried after a broken upstream body (%s): nothing had reached it', async (_lane, model) => {
      h.upstream.enqueue({ kind: 'reset-mid-stream', blocks: [{ type: 'text', text: 'partial' }] }, text('recovered'));
      const { data, response } = await h.anthropic.messages.create({ model, max_tokens: 50, messages: [user('hi')] }).withResponse();
      expect(data.content).toEqual([expect.objectContaining({ text: 'recovered' })]);
      expect(response.headers.get('x-switchyard-attempts')).toBe('2');
      expect(generations(h)).toHaveLength(2);
    });
  });

  describe('reasoning carry', () => {
    const anthropicHistory = [
      { role: 'user' as const, content: 'Think about it.' },
      {
        role: 'assistant' as const,
        content: [
          { type: 'thinking' as const, thinking: 'Let me think.', signature: 'SIG-anthropic-opaque' },
          { type: 'text' as const, text: 'Done thinking.' },
        ],
      },
      { role: 'user' as const, content: 'And now?' },
    ];

    it('a conversation carrying Anthropic reasoning prefers Messages targets', async () => {
      h.upstream.enqueue(text('same family'));
      const { data, response } = await h.anthropic.messages
        .create({ model: 'carry-r-first', max_tokens: 2048, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: anthropicHistory })
        .withResponse();
      expect(data.content).toEqual([expect.objectContaining({ text: 'same family' })]);
      expect(response.headers.get('x-switchyard-provider')).toBe('m-once');
      const [seen] = generations(h);
      expect(seen!.protocol).toBe('messages');
      expect(JSON.stringify(seen!.body.messages)).toContain('SIG-anthropic-opaque');
      expect(generations(h)).toHaveLength(1);
    });

    it('a conversation carrying OpenAI reasoning prefers Responses targets', async () => {
      h.upstream.enqueue(text('same family'));
      const input = [
        { role: 'user' as const, content: 'Think about it.' },
        { type: 'reasoning' as const, id: 'rs_abc', summary: [{ type: 'summary_text' as const, text: 'Thought.' }], encrypted_content: 'ENC-openai-opaque' },
        { role: 'assistant' as const, content: 'Done thinking.' },
        { role: 'user' as const, content: 'And now?' },
      ];
      const { data, response } = await h.openai.responses
        .create({ model: 'carry-m-first', input, store: false, reasoning: { effort: 'low' }, include: ['reasoning.encrypted_content'] })
        .withResponse();
      expect(data.output_text).toBe('same family');
      expect(response.headers.get('x-switchyard-provider')).toBe('r-once');
      const [seen] = generations(h);
      expect(seen!.protocol).toBe('responses');
      expect(JSON.stringify(seen!.body.input)).toContain('ENC-openai-opaque');
    });

    it('the preference still falls back to the other family when the preferred one fails', async () => {
      h.upstream.enqueue({ kind: 'http-error', status: 529 }, text('crossed'));
      const msg = await h.anthropic.messages.create({
        model: 'carry-r-first',
        max_tokens: 2048,
        thinking: { type: 'enabled', budget_tokens: 1024 },
        messages: anthropicHistory,
      });
      expect(msg.content).toEqual([expect.objectContaining({ text: 'crossed' })]);
      expect(generations(h).map((r) => r.protocol)).toEqual(['messages', 'responses']);
    });

    it('when it must cross, the foreign opaque state is dropped with a recorded warning, not a failure', async () => {
      h.upstream.enqueue(text('crossed'));
      const { data, response } = await h.anthropic.messages
        .create({ model: 'only-r', max_tokens: 2048, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: anthropicHistory })
        .withResponse();
      expect(data.content).toEqual([expect.objectContaining({ text: 'crossed' })]);
      const warnings = response.headers.get('x-switchyard-warnings');
      expect(warnings).toMatch(/reasoning/);
      const [seen] = generations(h);
      expect(seen!.protocol).toBe('responses');
      const sent = JSON.stringify(seen!.body);
      expect(sent).not.toContain('SIG-anthropic-opaque');
      expect((seen!.body.input as { type?: string }[]).some((i) => i.type === 'reasoning')).toBe(false);
      expect(sent).toContain('Done thinking.');
    });
  });
});

/** Consumes a reply left in the queue by a test that expected it not to be used. */
async function drain(h: Harness): Promise<void> {
  await h.openai.responses.create({ model: 'retry-r', input: 'drain', store: false });
}
