// Gemini CLI (the real CLI, pinned in devDependencies) through the gateway's Gemini door to each upstream protocol.
// Each test runs `gemini -p` in a fresh temp HOME and working directory, fully offline, and asserts the effect on
// disk, the final answer, and what the upstream received — see test/support/clients/.
import { describe, expect, it } from 'vitest';
import type { UpstreamProtocol } from '../../support/gateway-harness.js';
import { assertAgentLoop, runAgentLoop, type AgentLoopEvidence } from '../../support/clients/agent-loop-scenario.js';

const RUN_TIMEOUT_MS = 60_000;
const TEST_TIMEOUT_MS = 90_000;
/** The CLI picks model ids of its own for side calls (flash models for routing and checks): one pattern catches them. */
const EXTRA_ROUTES = ['gemini-*'];

type Part = { functionCall?: { name: string }; thoughtSignature?: string };
type Contents = { contents?: { role: string; parts?: Part[] }[] };

/** The thought signatures on the function-call parts of the history the CLI sent on its second turn. */
function signaturesOnCalls(ev: AgentLoopEvidence): (string | undefined)[] {
  const turns = ev.exchanges.filter((x) => x.url.includes(':streamGenerateContent'));
  const body = turns[1]?.requestBody as Contents | undefined;
  return (body?.contents ?? []).filter((c) => c.role === 'model').flatMap((c) => (c.parts ?? []).filter((p) => p.functionCall).map((p) => p.thoughtSignature));
}

const routes: { upstream: UpstreamProtocol; name: string }[] = [
  { upstream: 'gemini', name: 'via-gemini: pass-through to a Google Gemini upstream' },
  { upstream: 'messages', name: 'via-messages: translated to an Anthropic Messages upstream' },
  { upstream: 'responses', name: 'via-responses: translated to an OpenAI Responses upstream' },
  { upstream: 'chat', name: 'via-chat: translated to a Chat Completions upstream' },
];

describe('Gemini CLI → /v1beta/models/{model}:streamGenerateContent', () => {
  for (const route of routes) {
    it(
      `runs run_shell_command and answers, ${route.name}`,
      async () => {
        const evidence = await runAgentLoop('gemini-cli', route.upstream, { timeoutMs: RUN_TIMEOUT_MS, extraRoutes: EXTRA_ROUTES });
        assertAgentLoop(evidence);
        // The CLI sends the signature back on the function call it was given; through a reasoning upstream the gateway
        // must have put one there (Gemini's own, or the other vendor's state carried in it).
        if (route.upstream !== 'chat') {
          const signatures = signaturesOnCalls(evidence);
          expect(signatures).toHaveLength(1);
          expect(signatures[0]).toBeTruthy();
          if (route.upstream === 'gemini') expect(signatures[0]).toBe('opaque-gemini-1');
        }
      },
      TEST_TIMEOUT_MS,
    );
  }
});
