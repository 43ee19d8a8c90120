// The model table end to end: aliases, wildcard routes, multi-target models with per-target defaults and
// overrides (asserted on what the upstream received), the three strategies, and API key rotation.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Harness } from '../../support/gateway-harness.js';
import { generations, provider, routerHarness, user, waitFor } from './support.js';

const text = (t: string) => ({ kind: 'reply' as const, blocks: [{ type: 'text' as const, text: t }] });

describe('router: model table', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await routerHarness((url) => ({
      providers: {
        'up-m': provider('messages', url, { api_keys: ['m-key-1', 'm-key-2'] }),
        'up-r': provider('responses', url, { api_keys: ['r-key-1', 'r-key-2'] }),
      },
      models: {
        fast: { provider: 'up-r', model: 'gpt-fast' },
        'claude-*': { provider: 'up-m' },
        'gpt-*': { provider: 'up-r' },
        tuned: {
          targets: [
            { provider: 'up-m', model: 'claude-tuned', overrides: { max_tokens: 77, temperature: 0.3 } },
            { provider: 'up-r', model: 'gpt-tuned', defaults: { max_tokens: 55, temperature: 0.9 }, overrides: { reasoning_effort: 'low' } },
          ],
        },
        weighted: { strategy: 'weighted', targets: [{ provider: 'up-r', model: 'w-1', weight: 1 }, { provider: 'up-r', model: 'w-2', weight: 1 }] },
        'weighted-zero': { strategy: 'weighted', targets: [{ provider: 'up-r', model: 'z-0', weight: 0 }, { provider: 'up-r', model: 'z-1', weight: 1 }] },
        least: { strategy: 'least-inflight', targets: [{ provider: 'up-r', model: 'l-1' }, { provider: 'up-r', model: 'l-2' }] },
      },
    }));
  });
  afterAll(async () => {
    await h.close();
  });
  beforeEach(() => {
    h.upstream.received.length = 0;
  });

  it('an exact alias maps to its upstream model, echoes the alias, and names the deployment in headers', async () => {
    h.upstream.enqueue(text('from fast'));
    const { data, response } = await h.openai.responses.create({ model: 'fast', input: 'hi', store: false }).withResponse();
    expect(data.output_text).toBe('from fast');
    expect(data.model).toBe('fast');
    expect(response.headers.get('x-switchyard-provider')).toBe('up-r');
    expect(response.headers.get('x-switchyard-model')).toBe('gpt-fast');
    expect(response.headers.get('x-switchyard-attempts')).toBe('1');
    const [seen] = generations(h);
    expect(seen!.protocol).toBe('responses');
    expect(seen!.body.model).toBe('gpt-fast');
  });

  it('a wildcard route passes the requested name through, on either lane', async () => {
    h.upstream.enqueue(text('pass'), text('translated'));
    const a = await h.anthropic.messages.create({ model: 'claude-sonnet-9-9', max_tokens: 100, messages: [user('hi')] });
    expect(a.model).toBe('claude-sonnet-9-9');
    const b = await h.openai.responses.create({ model: 'claude-haiku-7', input: 'hi', store: false });
    expect(b.output_text).toBe('translated');
    expect(b.model).toBe('claude-haiku-7');
    const seen = generations(h);
    expect(seen.map((r) => [r.protocol, r.body.model])).toEqual([
      ['messages', 'claude-sonnet-9-9'],
      ['messages', 'claude-haiku-7'],
    ]);
  });

  it('an unknown model is a 404 and reaches no upstream', async () => {
    await expect(h.anthropic.messages.create({ model: 'nope-1', max_tokens: 10, messages: [user('hi')] })).rejects.toMatchObject({ status: 404 });
    await expect(h.openai.responses.create({ model: 'nope-2', input: 'hi' })).rejects.toMatchObject({ status: 404 });
    expect(generations(h)).toHaveLength(0);
  });

  it('per-target overrides beat the caller, defaults fill only what the caller left out (Messages caller)', async () => {
    h.upstream.enqueue({ kind: 'http-error', status: 529 }, text('second target'));
    // temperature is legacy in the SDK's types but still on the wire (and in the gateway's IR).
    const params = { model: 'tuned', max_tokens: 1000, temperature: 0.5, messages: [user('hi')] };
    const msg = await h.anthropic.messages.create(params);
    expect(msg.content).toEqual([expect.objectContaining({ type: 'text', text: 'second target' })]);
    const [first, second] = generations(h);
    // First target, pass-through: overrides replace the caller's values.
    expect(first!.protocol).toBe('messages');
    expect(first!.body).toMatchObject({ model: 'claude-tuned', max_tokens: 77, temperature: 0.3 });
    // Second target, re-encoded from the IR as Responses: the caller's values stay, the override is added.
    expect(second!.protocol).toBe('responses');
    expect(second!.body).toMatchObject({ model: 'gpt-tuned', max_output_tokens: 1000, temperature: 0.5 });
    expect(second!.body.reasoning?.effort).toBe('low');
  });

  it('per-target defaults and overrides on the other lane (Responses caller)', async () => {
    h.upstream.enqueue({ kind: 'http-error', status: 529 }, text('ok'));
    const r = await h.openai.responses.create({ model: 'tuned', input: 'hi', store: false, reasoning: { effort: 'high' } });
    expect(r.output_text).toBe('ok');
    const [first, second] = generations(h);
    expect(first!.protocol).toBe('messages');
    expect(first!.body).toMatchObject({ model: 'claude-tuned', max_tokens: 77, temperature: 0.3 });
    expect(second!.protocol).toBe('responses');
    expect(second!.body).toMatchObject({ model: 'gpt-tuned', max_output_tokens: 55, temperature: 0.9 });
    expect(second!.body.reasoning.effort).toBe('low');
  });

  it('weighted: spreads over both deployments; a zero weight is never first', async () => {
    const n = 40;
    for (let i = 0; i < n; i++) {
      h.upstream.enqueue(text('w'));
      await h.openai.responses.create({ model: 'weighted', input: 'hi', store: false });
    }
    const models = generations(h).map((r) => r.body.model);
    expect(new Set(models)).toEqual(new Set(['w-1', 'w-2']));
    h.upstream.received.length = 0;
    for (let i = 0; i < 10; i++) {
      h.upstream.enqueue(text('z'));
      await h.openai.responses.create({ model: 'weighted-zero', input: 'hi', store: false });
    }
    expect(new Set(generations(h).map((r) => r.body.model))).toEqual(new Set(['z-1']));
  });

  it('least-inflight: a busy deployment is passed over', async () => {
    h.upstream.enqueue({ kind: 'delay-headers', ms: 300, then: text('slow') }, text('fast'));
    const slow = h.openai.responses.create({ model: 'least', input: 'one', store: false });
    await waitFor(() => generations(h).length === 1, 3000, 'first request upstream');
    const fast = await h.openai.responses.create({ model: 'least', input: 'two', store: false });
    expect(fast.output_text).toBe('fast');
    expect((await slow).output_text).toBe('slow');
    expect(generations(h).map((r) => r.body.model)).toEqual(['l-1', 'l-2']);
    // Both idle again: back to the first in order.
    h.upstream.enqueue(text('again'));
    await h.openai.responses.create({ model: 'least', input: 'three', store: false });
    expect(generations(h)[2]!.body.model).toBe('l-1');
  });

  it('rotates a provider’s keys on both lanes', async () => {
    for (let i = 0; i < 4; i++) h.upstream.enqueue(text('k'));
    await h.anthropic.messages.create({ model: 'claude-k', max_tokens: 10, messages: [user('a')] }); // pass-through
    await h.openai.responses.create({ model: 'claude-k', input: 'b', store: false }); // translation
    await h.openai.responses.create({ model: 'gpt-k', input: 'c', store: false }); // pass-through
    await h.anthropic.messages.create({ model: 'gpt-k', max_tokens: 10, messages: [user('d')] }); // translation
    const seen = generations(h);
    // Consecutive requests to a provider alternate its keys (the cursor is shared by both lanes).
    expect(new Set(seen.filter((r) => r.protocol === 'messages').map((r) => r.headers['x-api-key']))).toEqual(new Set(['m-key-1', 'm-key-2']));
    expect(new Set(seen.filter((r) => r.protocol === 'responses').map((r) => r.headers.authorization))).toEqual(
      new Set(['Bearer r-key-1', 'Bearer r-key-2']),
    );
  });
});
