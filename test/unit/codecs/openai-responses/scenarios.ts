// IR event sequences for the Responses encoders, with the request context each one is answered in.
// The deterministic ones are saved as SSE fixtures (test/fixtures/caller/openai-responses/<name>.sse).
import type { EncodeContext } from '../../../../src/codecs/types.js';
import type { IrEvent, ReasoningCarry, ToolDefinition } from '../../../../src/ir/types.js';
import { encodeContext, usage, type Step } from './stream-support.js';

export interface Scenario {
  name: string;
  ctx: EncodeContext;
  steps: Step[];
}

const start: IrEvent = { type: 'response-start', id: 'upstream_1', model: 'claude-upstream' };
const finish = (reason: Extract<IrEvent, { type: 'finish' }>['finish']['reason']): IrEvent => ({ type: 'finish', finish: { reason, raw: reason } });

const weatherTool: ToolDefinition = {
  name: 'get_weather',
  description: 'Current weather',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  kind: 'function',
  strict: true,
};

const applyPatchTool: ToolDefinition = {
  name: 'apply_patch',
  description: 'Use the `apply_patch` tool to edit files.',
  kind: 'custom',
  format: { type: 'grammar', syntax: 'lark', definition: 'start: begin_patch hunk+ end_patch' },
};

export const openaiCarry: ReasoningCarry = {
  family: 'openai',
  id: 'rs_upstream_68b1',
  encryptedContent: 'gAAAAABoUpstreamBlob==',
  summary: [
    { type: 'summary_text', text: '**Checking weather** I need the tool.' },
    { type: 'summary_text', text: 'Paris it is.' },
  ],
};

/** responses.md §9(a). */
export const textReply: Scenario = {
  name: 'text-reply',
  ctx: encodeContext({ model: 'gpt-5', reasoning: { effort: 'medium' } }, 'resp_68b1f0c2a4e08190'),
  steps: [
    start,
    'ping',
    { type: 'text-start', block: 0 },
    { type: 'text-delta', block: 0, text: 'Hello' },
    { type: 'text-delta', block: 0, text: ' there!' },
    { type: 'text-end', block: 0 },
    { type: 'usage', usage: usage({ inputTokens: 19, outputTokens: 6 }) },
    finish('end_turn'),
  ],
};

/** responses.md §9(b): reasoning with a summary (two upstream summary parts), a call, then text. */
export const reasoningToolText: Scenario = {
  name: 'reasoning-tool-text',
  ctx: encodeContext({ model: 'gpt-5', tools: [weatherTool], reasoning: { effort: 'high', summary: 'auto' } }, 'resp_9c'),
  steps: [
    start,
    { type: 'reasoning-start', block: 0 },
    { type: 'reasoning-delta', block: 0, text: '**Checking weather** I need' },
    { type: 'reasoning-delta', block: 0, text: ' the tool.' },
    { type: 'reasoning-part-break', block: 0 },
    { type: 'reasoning-delta', block: 0, text: 'Paris it is.' },
    { type: 'reasoning-end', block: 0, carry: openaiCarry },
    { type: 'tool-call-start', block: 1, id: 'call_Wq2Lx7', name: 'get_weather', kind: 'function' },
    { type: 'tool-call-delta', block: 1, argumentsDelta: '{"city":' },
    { type: 'tool-call-delta', block: 1, argumentsDelta: '"Paris"}' },
    { type: 'tool-call-end', block: 1 },
    { type: 'text-start', block: 2 },
    { type: 'text-delta', block: 2, text: 'Checking Paris now.' },
    { type: 'text-end', block: 2 },
    { type: 'usage', usage: usage({ inputTokens: 81, outputTokens: 142, reasoningTokens: 96 }) },
    finish('tool_use'),
  ],
};

/** The same answer for a caller that did not ask for summaries (Anthropic thinking upstream). */
export const reasoningNoSummary: Scenario = {
  name: 'reasoning-no-summary',
  ctx: encodeContext({ model: 'gpt-5', tools: [weatherTool], reasoning: { effort: 'high' } }, 'resp_9d'),
  steps: [
    start,
    { type: 'reasoning-start', block: 0 },
    { type: 'reasoning-delta', block: 0, text: 'The user wants Paris weather.' },
    {
      type: 'reasoning-end',
      block: 0,
      carry: { family: 'anthropic', block: { type: 'thinking', thinking: 'The user wants Paris weather.', signature: 'EqoBsig' } },
    },
    { type: 'tool-call-start', block: 1, id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_weather', kind: 'function' },
    { type: 'tool-call-delta', block: 1, argumentsDelta: '{"city":"Paris"}' },
    { type: 'tool-call-end', block: 1 },
    { type: 'usage', usage: usage({ inputTokens: 2560, cacheReadTokens: 2048, cacheWriteTokens: 100, outputTokens: 96, reasoningTokens: 40 }) },
    finish('tool_use'),
  ],
};

export const parallelCalls: Scenario = {
  name: 'parallel-calls',
  ctx: encodeContext({ model: 'gpt-5', tools: [weatherTool], parallelToolCalls: true }, 'resp_pc'),
  steps: [
    start,
    { type: 'tool-call-start', block: 0, id: 'call_paris', name: 'get_weather', kind: 'function' },
    { type: 'tool-call-delta', block: 0, argumentsDelta: '{"city":"Paris"}' },
    { type: 'tool-call-end', block: 0 },
    // No deltas: the whole argument text arrives with the end (a non-streamed upstream answer).
    { type: 'tool-call-start', block: 1, id: 'call_rome', name: 'get_weather', kind: 'function' },
    { type: 'tool-call-end', block: 1, arguments: '{"city":"Rome"}' },
    { type: 'usage', usage: usage({ inputTokens: 50, outputTokens: 30 }) },
    finish('tool_use'),
  ],
};

/** Codex's freeform apply_patch tool. */
export const customTool: Scenario = {
  name: 'custom-tool',
  ctx: encodeContext({ model: 'gpt-5-codex', tools: [applyPatchTool], toolChoice: { type: 'tool', name: 'apply_patch' } }, 'resp_ct'),
  steps: [
    start,
    { type: 'text-start', block: 0 },
    { type: 'text-delta', block: 0, text: 'Patching.' },
    { type: 'text-end', block: 0 },
    { type: 'tool-call-start', block: 1, id: 'call_patch', name: 'apply_patch', kind: 'custom' },
    { type: 'tool-call-delta', block: 1, argumentsDelta: '*** Begin Patch\n*** Add File: a.txt\n' },
    { type: 'tool-call-delta', block: 1, argumentsDelta: '+hello "world"\n*** End Patch' },
    { type: 'tool-call-end', block: 1 },
    { type: 'usage', usage: usage({ inputTokens: 900, cacheReadTokens: 512, outputTokens: 40 }) },
    finish('tool_use'),
  ],
};

/** responses.md §9 terminal variants: cut off by max_output_tokens mid-text. */
export const incompleteMaxTokens: Scenario = {
  name: 'incomplete-max-tokens',
  ctx: encodeContext({ model: 'gpt-5', maxOutputTokens: 16 }, 'resp_1a'),
  steps: [
    start,
    { type: 'text-start', block: 0 },
    { type: 'text-delta', block: 0, text: 'The first part of' },
    { type: 'text-end', block: 0 },
    { type: 'usage', usage: usage({ inputTokens: 12, outputTokens: 16 }) },
    finish('max_tokens'),
  ],
};

/** An upstream failure in the middle of a tool call, after one finished item. */
export const errorMidStream: Scenario = {
  name: 'error-mid-stream',
  ctx: encodeContext({ model: 'gpt-5', tools: [weatherTool] }, 'resp_1b'),
  steps: [
    start,
    { type: 'text-start', block: 0 },
    { type: 'text-delta', block: 0, text: 'Let me check.' },
    { type: 'text-end', block: 0 },
    { type: 'tool-call-start', block: 1, id: 'call_cut', name: 'get_weather', kind: 'function' },
    { type: 'tool-call-delta', block: 1, argumentsDelta: '{"city":"Par' },
    { type: 'error', error: { kind: 'rate_limit', message: 'Rate limit reached' } },
    // Nothing after the terminal event reaches the caller.
    { type: 'tool-call-end', block: 1 },
    finish('tool_use'),
  ],
};

export const refusal: Scenario = {
  name: 'refusal',
  ctx: encodeContext({ model: 'gpt-5' }, 'resp_rf'),
  steps: [
    start,
    { type: 'text-start', block: 0, refusal: true },
    { type: 'text-delta', block: 0, text: "I can't help" },
    { type: 'text-delta', block: 0, text: ' with that.' },
    { type: 'text-end', block: 0 },
    finish('refusal'),
  ],
};

/** Saved byte for byte as test/fixtures/caller/openai-responses/<name>.sse. */
export const FIXTURE_SCENARIOS: Scenario[] = [
  textReply,
  reasoningToolText,
  reasoningNoSummary,
  parallelCalls,
  customTool,
  incompleteMaxTokens,
  errorMidStream,
  refusal,
];
