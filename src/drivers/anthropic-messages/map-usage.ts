// Anthropic usage → IR usage (messages.md §11, mapping.md §10). Anthropic's `input_tokens` excludes
// cache reads and writes; the IR counts the whole prompt, so the three are added.
import type { Usage } from '../../ir/types.js';
import type { UpstreamUsageWire } from '../../protocols/anthropic-messages/upstream-response.js';

/** The raw counters, kept by the stream decoder so later cumulative totals can overwrite them. */
export interface UsageCounters {
  input: number;
  cacheWrite: number;
  cacheRead: number;
  output: number;
  thinking: number;
}

export function emptyCounters(): UsageCounters {
  return { input: 0, cacheWrite: 0, cacheRead: 0, output: 0, thinking: 0 };
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** Overwrite the counters `usage` carries (they are cumulative totals, never increments); null or
 * absent counters keep their previous value, as the SDK's accumulator does. */
export function applyUsage(counters: UsageCounters, usage: UpstreamUsageWire): void {
  const input = count(usage.input_tokens);
  if (input !== undefined) counters.input = input;
  const write = count(usage.cache_creation_input_tokens);
  if (write !== undefined) counters.cacheWrite = write;
  const read = count(usage.cache_read_input_tokens);
  if (read !== undefined) counters.cacheRead = read;
  const output = count(usage.output_tokens);
  if (output !== undefined) counters.output = output;
  const details = usage.output_tokens_details;
  const thinking = details && typeof details === 'object' ? count(details.thinking_tokens) : undefined;
  if (thinking !== undefined) counters.thinking = thinking;
}

export function usageFromCounters(c: UsageCounters): Usage {
  return {
    inputTokens: c.input + c.cacheWrite + c.cacheRead,
    cacheReadTokens: c.cacheRead,
    cacheWriteTokens: c.cacheWrite,
    outputTokens: c.output,
    reasoningTokens: c.thinking,
  };
}

export function mapUsage(usage: UpstreamUsageWire | null | undefined): Usage {
  const counters = emptyCounters();
  if (usage && typeof usage === 'object') applyUsage(counters, usage);
  return usageFromCounters(counters);
}
