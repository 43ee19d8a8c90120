// The real Claude Code CLI through an OpenAI upstream (Responses and Chat): the ~190-character JSON it
// sends in `metadata.user_id` must reach the upstream as an identifier OpenAI accepts (≤ 64 characters
// in `safety_identifier` / `user`), the same on every turn of the agent loop (mapping.md §15.52); and
// its streamed answers start with a non-zero input estimate in message_start (§15.53).
import { describe, expect, it } from 'vitest';
import { assertAgentLoop, runAgentLoop } from '../../support/clients/agent-loop-scenario.js';
import { parseSse } from '../../unit/support/raw-http.js';

describe('Claude Code’s identity and usage through OpenAI upstreams', () => {
  it.each(['responses', 'chat'] as const)(
    'via-%s',
    async (upstream) => {
      const evidence = await runAgentLoop('claude-code', upstream, { timeoutMs: 60_000 });
      assertAgentLoop(evidence);
      const generations = evidence.exchanges.filter((x) => x.method === 'POST' && /\/v1\/messages(\?|$)/.test(x.url));
      const userIds = new Set(generations.map((x) => (x.requestBody as { metadata?: { user_id?: string } }).metadata?.user_id));
      expect(userIds.size).toBe(1);
      const userId = [...userIds][0];
      expect(typeof userId).toBe('string');
      // Claude Code's id does not fit OpenAI's 64 characters: what the upstream got is the digest.
      expect(userId!.length).toBeGreaterThan(64);
      const field = upstream === 'responses' ? 'safety_identifier' : 'user';
      const sent = evidence.upstream.filter((r) => !/count_tokens|input_tokens|models/.test(r.path)).map((r) => r.body[field] as string);
      expect(sent.length).toBeGreaterThanOrEqual(2);
      expect(new Set(sent).size).toBe(1);
      expect(sent[0]!.length).toBeLessThanOrEqual(64);
      expect(sent[0]).not.toBe(userId);
      // Streamed answers: message_start carries the input estimate, not 0.
      const starts = generations
        .filter((x) => String(x.responseHeaders['content-type']).startsWith('text/event-stream'))
        .flatMap((x) => parseSse(x.responseText).filter((f) => f.event === 'message_start'))
        .map((f) => (JSON.parse(f.data) as { message: { usage: { input_tokens: number } } }).message.usage.input_tokens);
      expect(starts.length).toBeGreaterThanOrEqual(1);
      for (const n of starts) expect(n).toBeGreaterThan(0);
    },
    90_000,
  );
});
