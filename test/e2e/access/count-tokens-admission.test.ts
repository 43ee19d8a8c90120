// Token counting under the key's rpm window, and one wording for "no such model" and "not yours"
// (review D6): a limited key could drive unlimited count_tokens calls upstream on the shared provider
// key, and the 404 wording told a key which aliases exist beyond its allow-list.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/gateway-harness.js';

const LIMITED = 'sk-sy-count-limited-0123456789';
const NARROW = 'sk-sy-count-narrow-0123456789';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    config: (base) => ({
      auth: {
        keys: [
          { name: 'limited', key: LIMITED, limits: { rpm: 2 } },
          { name: 'narrow', key: NARROW, models: ['via-messages'] },
        ],
      },
      providers: { 'up-messages': { protocol: 'messages', base_url: base, api_key: 'upstream-key-m', retry: { attempts: 1 } } },
      models: { 'via-messages': { provider: 'up-messages', model: 'claude-upstream-1' }, secret: { provider: 'up-messages', model: 'claude-upstream-1' } },
    }),
  });
});
afterAll(async () => {
  await h?.close();
});

const messages = [{ role: 'user' as const, content: 'hi' }];

describe('count_tokens and the rpm window', () => {
  it('counts as a request of the rpm window: the third within a minute is 429, and nothing more goes upstream', async () => {
    const client = new Anthropic({ baseURL: h.url, apiKey: LIMITED, maxRetries: 0 });
    for (let i = 0; i < 2; i++) expect((await client.messages.countTokens({ model: 'via-messages', messages })).input_tokens).toBeGreaterThan(0);
    const sent = h.upstream.received.length;
    const err = await client.messages.countTokens({ model: 'via-messages', messages }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.RateLimitError);
    expect(h.upstream.received.length).toBe(sent);
  });
});

describe('one wording for an unknown model and a model outside the allow-list', () => {
  it('answers both the same, at both doors', async () => {
    const anthropic = new Anthropic({ baseURL: h.url, apiKey: NARROW, maxRetries: 0 });
    const openai = new OpenAI({ baseURL: h.url + '/v1', apiKey: NARROW, maxRetries: 0 });
    const texts: string[] = [];
    for (const model of ['secret', 'nonexistent']) {
      const a = await anthropic.messages.create({ model, max_tokens: 8, messages }).catch((e: unknown) => e);
      expect(a).toBeInstanceOf(Anthropic.NotFoundError);
      texts.push((a as { error: { error: { message: string } } }).error.error.message.replace(model, 'M'));
      const o = await openai.responses.create({ model, input: 'hi' }).catch((e: unknown) => e);
      expect(o).toMatchObject({ status: 404, code: 'model_not_found', param: 'model' });
      texts.push((o as Error).message.replace(model, 'M'));
    }
    expect(new Set(texts.filter((_, i) => i % 2 === 0)).size).toBe(1);
    expect(new Set(texts.filter((_, i) => i % 2 === 1)).size).toBe(1);
    expect(texts[0]).toBe('model "M" is not available: not configured on this gateway, or not allowed for this API key');
  });
});
