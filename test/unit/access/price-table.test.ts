import { describe, expect, it } from 'vitest';
import { costMicros, costOf, priceFor, shippedPrice } from '../../../src/access/price-table.js';
import { mapUsage } from '../../../src/drivers/anthropic-messages/map-usage.js';
import type { ModelPrice } from '../../../src/config/types.js';

const price: ModelPrice = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };

describe('cost of an answer', () => {
  it('prices uncached input, cache reads, cache writes and output (reasoning included) each at its rate', () => {
    // Anthropic counts input without the cache; the IR adds them back (input = 100 + 2000 + 500).
    const usage = mapUsage({ input_tokens: 100, cache_read_input_tokens: 2000, cache_creation_input_tokens: 500, output_tokens: 400 });
    expect(usage.inputTokens).toBe(2600);
    // 100×3 + 2000×0.3 + 500×3.75 + 400×15 = 300 + 600 + 1875 + 6000 µUSD
    expect(costMicros(usage, price)).toBe(8775);
    expect(costOf(usage, price)).toBeCloseTo(0.008775, 9);
  });

  it('bills reasoning tokens once, as part of output', () => {
    const usage = { inputTokens: 1000, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 3000, reasoningTokens: 2500 };
    expect(costMicros(usage, price)).toBe(1000 * 3 + 3000 * 15);
  });

  it('returns whole micro-dollars even for fractional rates', () => {
    const usage = { inputTokens: 7, cacheReadTokens: 3, cacheWriteTokens: 0, outputTokens: 1, reasoningTokens: 0 };
    const micros = costMicros(usage, { input: 0.1, output: 0.5, cacheRead: 0.01, cacheWrite: 0.125 });
    expect(Number.isInteger(micros)).toBe(true);
    expect(micros).toBe(1); // 0.4 + 0.03 + 0.5 = 0.93 → 1
  });
});

describe('price table', () => {
  it('knows current Anthropic and OpenAI models, dated snapshots by their base name', () => {
    expect(shippedPrice('claude-opus-5-5')).toEqual({ input: 4, output: 20, cacheRead: 0.2, cacheWrite: 5 });
    expect(shippedPrice('claude-haiku-4-5-20251001')).toEqual({ input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 });
    expect(shippedPrice('gpt-4o-2024-08-06')).toEqual(shippedPrice('gpt-4o'));
    expect(shippedPrice('gpt-5.4')!.output).toBe(15);
    expect(shippedPrice('my-local-llama')).toBeUndefined();
  });

  it('knows the Gemini models; a Gemini answer with thoughts and cached tokens is priced like any other', () => {
    expect(shippedPrice('gemini-2.5-flash')).toEqual({ input: 0.3, output: 2.5, cacheRead: 0.03, cacheWrite: 0.3 });
    expect(shippedPrice('gemini-3-pro-preview')?.output).toBe(12);
    // 1000 prompt tokens of which 800 cached, 100 answer + 300 thought tokens (the Gemini driver's usage).
    const usage = { inputTokens: 1000, cacheReadTokens: 800, cacheWriteTokens: 0, outputTokens: 400, reasoningTokens: 300 };
    expect(costMicros(usage, shippedPrice('gemini-2.5-pro')!)).toBe(Math.round(200 * 1.25 + 800 * 0.125 + 400 * 10));
  });

  it('prefers the alias price, then the provider price, then the shipped one', () => {
    const alias: ModelPrice = { input: 1, output: 1, cacheRead: 1, cacheWrite: 1 };
    const prov: ModelPrice = { input: 2, output: 2, cacheRead: 2, cacheWrite: 2 };
    const provider = { prices: new Map([['gpt-4o', prov]]) };
    expect(priceFor({ price: alias }, provider, 'gpt-4o')).toBe(alias);
    expect(priceFor({}, provider, 'gpt-4o')).toBe(prov);
    expect(priceFor(undefined, { prices: new Map() }, 'gpt-4o')).toEqual(shippedPrice('gpt-4o'));
    expect(priceFor(undefined, undefined, 'unknown-model')).toBeUndefined();
  });
});
