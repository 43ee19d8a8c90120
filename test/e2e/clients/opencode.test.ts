// opencode (the real binary, pinned in devDependencies) with an `@ai-sdk/openai-compatible` provider on the
// gateway's Chat Completions door, to each upstream protocol. Each test runs `opencode run` in a fresh temp HOME and
// working directory, fully offline, and asserts the effect on disk, the final answer, and what the upstream
// received — see test/support/clients/.
import { describe, expect, it } from 'vitest';
import type { UpstreamProtocol } from '../../support/gateway-harness.js';
import { assertAgentLoop, runAgentLoop } from '../../support/clients/agent-loop-scenario.js';
import { expectStandInSignature, GEMINI_3 } from '../../support/clients/stand-in-signature.js';

const RUN_TIMEOUT_MS = 90_000;
const TEST_TIMEOUT_MS = 120_000;

// The provider keeps `reasoning_content` but not `reasoning_details`: toward Gemini 3 the gateway must use the stand-in.
const routes: { upstream: UpstreamProtocol; name: string; upstreamModel?: string }[] = [
  { upstream: 'chat', name: 'via-chat: pass-through to a Chat Completions upstream' },
  { upstream: 'messages', name: 'via-messages: translated to an Anthropic Messages upstream' },
  { upstream: 'responses', name: 'via-responses: translated to an OpenAI Responses upstream' },
  { upstream: 'gemini', upstreamModel: GEMINI_3, name: `via-gemini: translated to a Google Gemini upstream (${GEMINI_3}, stand-in signature)` },
];

describe('opencode (@ai-sdk/openai-compatible) → /v1/chat/completions', () => {
  for (const route of routes) {
    it(
      `runs its bash tool and answers, ${route.name}`,
      async () => {
        const evidence = await runAgentLoop('opencode', route.upstream, { timeoutMs: RUN_TIMEOUT_MS, upstreamModel: route.upstreamModel });
        assertAgentLoop(evidence);
        if (route.upstream === 'gemini') expectStandInSignature(evidence);
        // Its session title is a second, tool-less request on the same door: served, on the same route.
        const chats = evidence.exchanges.filter((x) => x.url.startsWith('/v1/chat/completions'));
        expect(chats.length).toBeGreaterThanOrEqual(3);
        expect(chats.every((x) => x.status === 200)).toBe(true);
      },
      TEST_TIMEOUT_MS,
    );
  }
});
