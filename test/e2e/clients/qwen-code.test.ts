// Qwen Code (the real CLI, pinned in devDependencies) through the gateway's Chat Completions door — its default
// mode — to each upstream protocol. Each test runs `qwen` headless in a fresh temp HOME and working directory,
// fully offline, and asserts the effect on disk, the final answer, and what the upstream received — see
// test/support/clients/.
import { describe, expect, it } from 'vitest';
import type { UpstreamProtocol } from '../../support/gateway-harness.js';
import { assertAgentLoop, runAgentLoop } from '../../support/clients/agent-loop-scenario.js';
import { expectStandInSignature, GEMINI_3 } from '../../support/clients/stand-in-signature.js';

const RUN_TIMEOUT_MS = 60_000;
const TEST_TIMEOUT_MS = 90_000;

// Qwen Code keeps `reasoning_content` but not `reasoning_details`: toward Gemini 3 the gateway must use the stand-in.
const routes: { upstream: UpstreamProtocol; name: string; upstreamModel?: string }[] = [
  { upstream: 'chat', name: 'via-chat: pass-through to a Chat Completions upstream' },
  { upstream: 'messages', name: 'via-messages: translated to an Anthropic Messages upstream' },
  { upstream: 'responses', name: 'via-responses: translated to an OpenAI Responses upstream' },
  { upstream: 'gemini', upstreamModel: GEMINI_3, name: `via-gemini: translated to a Google Gemini upstream (${GEMINI_3}, stand-in signature)` },
];

describe('Qwen Code → /v1/chat/completions', () => {
  for (const route of routes) {
    it(
      `runs run_shell_command and answers, ${route.name}`,
      async () => {
        const evidence = await runAgentLoop('qwen-code', route.upstream, { timeoutMs: RUN_TIMEOUT_MS, upstreamModel: route.upstreamModel });
        assertAgentLoop(evidence);
        if (route.upstream === 'gemini') expectStandInSignature(evidence);
        // It streams and asks for the usage chunk; the gateway must have sent it as its own last chunk.
        const first = evidence.exchanges.find((x) => x.url.startsWith('/v1/chat/completions'))!;
        expect(first.requestBody).toMatchObject({ stream: true, stream_options: { include_usage: true } });
        const chunks = first.responseText.split('\n\n').filter((f) => f.startsWith('data: {')).map((f) => JSON.parse(f.slice(6)) as { choices: unknown[]; usage?: { total_tokens: number } });
        expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { total_tokens: expect.any(Number) } });
      },
      TEST_TIMEOUT_MS,
    );
  }
});

// Its other two modes: `--auth-type openai-responses` (the Responses door) and `--auth-type anthropic` (the
// Messages door), each through the protocol's own upstream (pass-through) and one translated upstream.
const otherModes: { client: 'qwen-code-responses' | 'qwen-code-messages'; door: string; upstream: UpstreamProtocol; name: string }[] = [
  { client: 'qwen-code-responses', door: '/v1/responses', upstream: 'responses', name: 'via-responses: pass-through' },
  { client: 'qwen-code-responses', door: '/v1/responses', upstream: 'messages', name: 'via-messages: translated' },
  { client: 'qwen-code-messages', door: '/v1/messages', upstream: 'messages', name: 'via-messages: pass-through' },
  { client: 'qwen-code-messages', door: '/v1/messages', upstream: 'responses', name: 'via-responses: translated' },
];

describe('Qwen Code in its Responses and Messages modes', () => {
  for (const route of otherModes) {
    it(
      `${route.client} → ${route.door} runs run_shell_command and answers, ${route.name}`,
      async () => {
        const evidence = await runAgentLoop(route.client, route.upstream, { timeoutMs: RUN_TIMEOUT_MS });
        assertAgentLoop(evidence);
      },
      TEST_TIMEOUT_MS,
    );
  }
});
