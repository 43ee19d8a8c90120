// Prices per upstream model (USD per million tokens) and the cost of one answer.
//
// The shipped table holds the vendors' public list prices, taken on 2026-11-25:
// - Anthropic from platform.claude.com (the pricing page and the model overview pages). Cache writes
//   use the 5-minute rate (the IR does not tell 5-minute from 1-hour writes apart). Haiku 5.5 is
//   billed in two bands; the table holds the band for prompts up to 100k tokens, so longer prompts are
//   under-counted; likewise the >200k-token surcharge of the Sonnet 4.x models is not modelled.
// - OpenAI from secondary sources quoting developers.openai.com/api/docs/pricing (the official page
//   itself could not be read when the table was taken); OpenAI does not bill cache writes separately.
// - Google from secondary sources quoting ai.google.dev/gemini-api/docs/pricing (paid tier, prompts up
//   to 200k tokens; the >200k band of the Pro models is not modelled). Cache reads at a tenth of input
//   (implicit caching); Google does not bill cache writes, only explicit-cache storage, which the IR
//   does not see.
// Operators override any of them: `models.<alias>.price` or `providers.<name>.prices.<model>`.
import type { ModelConfig, ModelPrice, ProviderConfig } from '../config/types.js';
import type { Usage } from '../ir/types.js';

export const PRICES_TAKEN_ON = '2026-11-25';

function p(input: number, output: number, cacheRead: number, cacheWrite = input): ModelPrice {
  return Object.freeze({ input, output, cacheRead, cacheWrite });
}

const SHIPPED: ReadonlyMap<string, ModelPrice> = new Map([
  // Anthropic
  ['claude-fable-5-1', p(10, 50, 0.25, 12.5)],
  ['claude-fable-5', p(10, 50, 1, 12.5)],
  ['claude-opus-5-5', p(4, 20, 0.2, 5)],
  ['claude-opus-5', p(5, 25, 0.5, 6.25)],
  ['claude-opus-4-8', p(5, 25, 0.5, 6.25)],
  ['claude-opus-4-7', p(5, 25, 0.5, 6.25)],
  ['claude-opus-4-6', p(5, 25, 0.5, 6.25)],
  ['claude-opus-4-5', p(5, 25, 0.5, 6.25)],
  ['claude-opus-4-1', p(15, 75, 1.5, 18.75)],
  ['claude-opus-4-0', p(15, 75, 1.5, 18.75)],
  ['claude-opus-4', p(15, 75, 1.5, 18.75)],
  ['claude-sonnet-5-5', p(2, 10, 0.1, 2.5)],
  ['claude-sonnet-5', p(2, 10, 0.2, 2.5)],
  ['claude-sonnet-4-6', p(3, 15, 0.3, 3.75)],
  ['claude-sonnet-4-5', p(3, 15, 0.3, 3.75)],
  ['claude-sonnet-4-0', p(3, 15, 0.3, 3.75)],
  ['claude-sonnet-4', p(3, 15, 0.3, 3.75)],
  ['claude-3-7-sonnet', p(3, 15, 0.3, 3.75)],
  ['claude-haiku-5-5', p(0.1, 0.5, 0.01, 0.125)],
  ['claude-haiku-4-5', p(1, 5, 0.1, 1.25)],
  ['claude-3-5-haiku', p(0.8, 4, 0.08, 1)],
  ['claude-3-haiku', p(0.25, 1.25, 0.03, 0.3)],
  // OpenAI
  ['gpt-5.5', p(5, 30, 0.5)],
  ['gpt-5.5-pro', p(30, 180, 30)],
  ['gpt-5.4', p(2.5, 15, 0.25)],
  ['gpt-5.4-mini', p(0.75, 4.5, 0.075)],
  ['gpt-5.4-nano', p(0.2, 1.25, 0.02)],
  ['gpt-5.4-pro', p(30, 180, 30)],
  ['gpt-5.1', p(1.25, 10, 0.125)],
  ['gpt-5', p(1.25, 10, 0.125)],
  ['gpt-5-mini', p(0.25, 2, 0.025)],
  ['gpt-5-nano', p(0.05, 0.4, 0.005)],
  ['gpt-4.1', p(2, 8, 0.5)],
  ['gpt-4.1-mini', p(0.4, 1.6, 0.1)],
  ['gpt-4.1-nano', p(0.1, 0.4, 0.025)],
  ['gpt-4o', p(2.5, 10, 1.25)],
  ['gpt-4o-mini', p(0.15, 0.6, 0.075)],
  ['o3', p(2, 8, 0.5)],
  ['o4-mini', p(1.1, 4.4, 0.275)],
  // Google
  ['gemini-3.5-flash', p(1.5, 9, 0.15)],
  ['gemini-3.1-pro', p(2, 12, 0.2)],
  ['gemini-3.1-pro-preview', p(2, 12, 0.2)],
  ['gemini-3.1-flash-lite', p(0.25, 1.5, 0.025)],
  ['gemini-3-pro-preview', p(2, 12, 0.2)],
  ['gemini-3-flash', p(0.5, 3, 0.05)],
  ['gemini-3-flash-preview', p(0.5, 3, 0.05)],
  ['gemini-2.5-pro', p(1.25, 10, 0.125)],
  ['gemini-2.5-flash', p(0.3, 2.5, 0.03)],
  ['gemini-2.5-flash-lite', p(0.1, 0.4, 0.01)],
  ['gemini-2.0-flash', p(0.1, 0.4, 0.025)],
]);

/** Dated snapshots (`claude-haiku-4-5-20251001`, `gpt-4o-2024-08-06`) cost what their base model costs. */
const DATE_SUFFIX = /-(?:\d{8}|\d{4}-\d{2}-\d{2})$/;

/** The shipped list price of an upstream model, or undefined when the table does not know it. */
export function shippedPrice(upstreamModel: string): ModelPrice | undefined {
  return SHIPPED.get(upstreamModel) ?? SHIPPED.get(upstreamModel.replace(DATE_SUFFIX, ''));
}

/**
 * The price of an answer: the alias's own price first (the operator's word for everything under
 * it), then the provider's price for the upstream model, then the shipped table.
 */
export function priceFor(
  model: Pick<ModelConfig, 'price'> | undefined,
  provider: Pick<ProviderConfig, 'prices'> | undefined,
  upstreamModel: string,
): ModelPrice | undefined {
  return model?.price ?? provider?.prices.get(upstreamModel) ?? shippedPrice(upstreamModel);
}

/**
 * Cost in micro-USD, a whole number (counters are integers): tokens × USD per million tokens is
 * exactly micro-USD. The IR's input count includes cache reads and writes (each priced on its
 * own) and its output count includes reasoning (billed as output).
 */
export function costMicros(usage: Usage, price: ModelPrice): number {
  const uncached = Math.max(0, usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens);
  const micros =
    uncached * price.input + usage.cacheReadTokens * price.cacheRead + usage.cacheWriteTokens * price.cacheWrite + usage.outputTokens * price.output;
  return Math.round(micros);
}

/** Cost in USD. */
export function costOf(usage: Usage, price: ModelPrice): number {
  return costMicros(usage, price) / 1_000_000;
}
