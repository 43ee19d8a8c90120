// Usage as each vendor reports it → IR usage (for metrics and logs on the pass-through lane): the
// drivers' own mappings, so both lanes count the same way.
import { mapUsage, mergeUsage } from '../../drivers/anthropic-messages/map-usage.js';
import { mapChatUsage } from '../../drivers/openai-chat/map-usage.js';
import { mapResponsesUsage } from '../../drivers/openai-responses/map-usage.js';
import { mapGeminiUsage } from '../../drivers/gemini/map-usage.js';
import type { GeminiUsageMetadata } from '../../protocols/gemini/response.js';
import type { Usage } from '../../ir/types.js';
import type { UpstreamUsageWire } from '../../protocols/anthropic-messages/upstream-response.js';
import type { ChatUsage } from '../../protocols/openai-chat/response.js';
import type { UsageWire } from '../../protocols/openai-responses/upstream-response.js';

/** Anthropic counts are cumulative and partial updates keep earlier non-null values. */
export function mergeAnthropicUsage(prev: Usage | undefined, u: UpstreamUsageWire | undefined | null): Usage | undefined {
  if (!u) return prev;
  return prev ? mergeUsage(prev, u) : mapUsage(u);
}

export function responsesUsage(u: UsageWire | undefined | null): Usage | undefined {
  return u ? mapResponsesUsage(u) : undefined;
}

export function chatUsage(u: ChatUsage | undefined | null): Usage | undefined {
  return u ? mapChatUsage(u) : undefined;
}

export function geminiUsage(u: GeminiUsageMetadata): Usage {
  return mapGeminiUsage(u);
}
