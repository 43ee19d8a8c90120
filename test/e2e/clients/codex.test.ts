// Codex CLI (the real binary, pinned in devDependencies) through the gateway's /v1/responses to each upstream
// protocol. Each test runs `codex exec` with a temporary CODEX_HOME whose custom provider points at the gateway,
// fully offline, and asserts the effect on disk, the final answer, and what the upstream received.
import { describe, it } from 'vitest';
import type { UpstreamProtocol } from '../../support/gateway-harness.js';
import { assertAgentLoop, runAgentLoop } from '../../support/clients/agent-loop-scenario.js';

const RUN_TIMEOUT_MS = 60_000;
const TEST_TIMEOUT_MS = 90_000;

const routes: { upstream: UpstreamProtocol; name: string; platform?: 'bedrock' }[] = [
  { upstream: 'messages', name: 'via-messages: translated to an Anthropic Messages upstream' },
  { upstream: 'messages', platform: 'bedrock', name: 'via-messages on Amazon Bedrock: translated, SigV4-signed, event-stream answers' },
  { upstream: 'chat', name: 'via-chat: translated to a Chat Completions upstream' },
  { upstream: 'gemini', name: 'via-gemini: translated to a Google Gemini upstream' },
  { upstream: 'responses', name: 'via-responses: pass-through to an OpenAI Responses upstream' },
];

describe('Codex → /v1/responses', () => {
  for (const route of routes) {
    it(
      `runs exec_command and answers, ${route.name}`,
      async () => {
        const evidence = await runAgentLoop('codex', route.upstream, { timeoutMs: RUN_TIMEOUT_MS, platform: route.platform });
        assertAgentLoop(evidence);
      },
      TEST_TIMEOUT_MS,
    );
  }
});
