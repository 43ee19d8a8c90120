// Chat Completions clients that keep `reasoning_content` but not `reasoning_details` (Qwen Code, opencode's
// `@ai-sdk/openai-compatible`) never send back the Gemini signature they were handed. Toward a Gemini 3 model —
// which refuses an unsigned function-call turn, as the scripted Gemini upstream does — the gateway must send
// Google's stand-in signature instead, and say so in a warning.
import { expect } from 'vitest';
import type { AgentLoopEvidence } from './agent-loop-checks.js';

export const GEMINI_3 = 'gemini-3-pro-preview';
export const STAND_IN = 'skip_thought_signature_validator';

type GeminiBody = { contents: { role: string; parts: { functionCall?: unknown; thoughtSignature?: string }[] }[] };

export function expectStandInSignature(ev: AgentLoopEvidence): void {
  const turns = ev.upstream.filter((r) => r.path.includes(':streamGenerateContent') && (r.body as GeminiBody).contents.some((c) => c.role === 'model'));
  expect(turns.length).toBeGreaterThan(0);
  const calls = (turns[0]!.body as GeminiBody).contents.flatMap((c) => c.parts).filter((p) => p.functionCall);
  expect(calls.map((p) => p.thoughtSignature)).toEqual([STAND_IN]);
  const answered = ev.exchanges.filter((x) => x.url.startsWith('/v1/chat/completions') && JSON.stringify(x.requestBody).includes('"tool_call_id"'));
  // The header counts the warnings and names their fields ("6; reasoning,tools").
  expect(String(answered[0]?.responseHeaders['x-switchyard-warnings'])).toMatch(/^\d+; .*reasoning/);
}
