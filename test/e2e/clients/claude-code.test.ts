// Claude Code (the real CLI, pinned in devDependencies) through the gateway's /v1/messages to each upstream
// protocol. Each test runs `claude -p` in a fresh temp HOME and working directory, fully offline, and asserts the
// effect on disk, the final answer, and what the upstream received — see test/support/clients/.
import { describe, it } from 'vitest';
import type { UpstreamProtocol } from '../../support/gateway-harness.js';
import { assertAgentLoop, runAgentLoop } from '../../support/clients/agent-loop-scenario.js';

const RUN_TIMEOUT_MS = 60_000;
const TEST_TIMEOUT_MS = 90_000;

const routes: { upstream: UpstreamProtocol; name: string; platform?: 'bedrock' }[] = [
  { upstream: 'responses', name: 'via-responses: translated to an OpenAI Responses upstream' },
  { upstream: 'chat', name: 'via-chat: translated to a Chat Completions upstream' },
  { upstream: 'gemini', name: 'via-gemini: translated to a Google Gemini upstream' },
  { upstream: 'messages', name: 'via-messages: pass-through to an Anthropic Messages upstream' },
  { upstream: 'messages', platform: 'bedrock', name: 'via-messages on Amazon Bedrock: pass-through, SigV4-signed, event-stream answers' },
];

describe('Claude Code → /v1/messages', () => {
  for (const route of routes) {
    it(
      `runs its Bash tool and answers, ${route.name}`,
      async () => {
        const evidence = await runAgentLoop('claude-code', route.upstream, { timeoutMs: RUN_TIMEOUT_MS, platform: route.platform });
        assertAgentLoop(evidence);
      },
      TEST_TIMEOUT_MS,
    );
  }
});
