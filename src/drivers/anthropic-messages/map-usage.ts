// Anthropic usage → IR usage (messages.md §11, mapping.md §10). Anthropic's `input_tokens` excludes
// cache reads and writes; the IR counts the whole prompt, so the three are added.
import { emptyUsage, type Usage } from '../../ir/types.js';
import type { UpstreamUsageWire } from '../../protocols/anthropic-messages/upstream-response.js';

const NO_USAGE: Readonly<Usage> = Object.freeze(emptyUsage());

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** `prev` updated by the counters `usage` carries (cumulative totals, never increments); null or absent
 * counters keep their previous value, as the SDK's accumulator does. `prev` itself is left as it was.
 * Serves the stream decoder and the pass-through lane's usage tap alike. */
export function mergeUsage(prev: Readonly<Usage>, usage: UpstreamUsageWire): Usage {
  const read = count(usage.cache_read_input_tokens) ?? prev.cacheReadTokens;
  const write = count(usage.cache_creation_input_tokens) ?? prev.cacheWriteTokens;
  const uncached = count(usage.input_tokens) ?? prev.inputTokens - prev.cacheReadTokens - prev.cacheWriteTokens;
  const details = usage.output_tokens_details;
  const thinking = details && typeof details === 'object' ? count(details.thinking_tokens) : undefined;
  return {
    inputTokens: uncached + write + read,
    cacheReadTokens: read,
    cacheWriteTokens: write,
    outputTokens: count(usage.output_tokens) ?? prev.outputTokens,
    reasoningTokens: thinking ?? prev.reasoningTokens,
  };
}

export function mapUsage(usage: UpstreamUsageWire | null | undefined): Usage {
  return usage && typeof usage === 'object' ? mergeUsage(NO_USAGE, usage) : emptyUsage();
}
