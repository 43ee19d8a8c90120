// Claude Code's `metadata.user_id` (a JSON string of ~190 characters) through the Anthropic SDK,
// toward each upstream: OpenAI takes at most 64 characters in `safety_identifier` / `user`, so the
// Responses and Chat upstreams must receive a stable digest of it (the same on every turn, different
// for another user), while an Anthropic upstream gets it as sent (mapping.md §15.52).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODELS, startHarness, type Harness, type UpstreamProtocol } from '../support/gateway-harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const claudeCodeUserId = (session: string) =>
  JSON.stringify({
    device_id: '9c6f0a8e4b2d1c3e5f7a9b0c2d4e6f8a1b3c5d7e9f0a2b4c6d8e0f1a3b5c7d9e',
    account_uuid: '3e4f5a6b-7c8d-4e9f-a0b1-c2d3e4f5a6b7',
    session_id: session,
  });
const ALICE = claudeCodeUserId('1f2e3d4c-5b6a-4798-8a7b-6c5d4e3f2a1b');
const BOB = claudeCodeUserId('a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d');

async function sentUserId(upstream: UpstreamProtocol, userId: string): Promise<unknown> {
  const before = h.upstream.received.length;
  await h.anthropic.messages.create({
    model: MODELS[upstream].alias,
    max_tokens: 64,
    metadata: { user_id: userId },
    messages: [{ role: 'user', content: 'hello' }],
  });
  const sent = h.upstream.received.slice(before);
  expect(sent).toHaveLength(1);
  const body = sent[0]!.body;
  if (upstream === 'responses') return body.safety_identifier;
  if (upstream === 'chat') return body.user;
  return body.metadata?.user_id;
}

describe('Claude Code’s user id toward each upstream', () => {
  it.each(['responses', 'chat'] as const)('%s: a digest of at most 64 characters, stable across turns, distinct per user', async (upstream) => {
    expect(ALICE.length).toBeGreaterThan(150);
    const first = (await sentUserId(upstream, ALICE)) as string;
    const second = await sentUserId(upstream, ALICE);
    const other = await sentUserId(upstream, BOB);
    expect(typeof first).toBe('string');
    expect(first.length).toBeLessThanOrEqual(64);
    expect(first).not.toContain('session_id');
    expect(second).toBe(first);
    expect(other).not.toBe(first);
  });

  it('the Responses and Chat upstreams see the same digest for the same user', async () => {
    expect(await sentUserId('responses', ALICE)).toBe(await sentUserId('chat', ALICE));
  });

  it('an id that fits goes as it is; an Anthropic upstream takes Claude Code’s id unchanged', async () => {
    expect(await sentUserId('responses', 'user-7')).toBe('user-7');
    expect(await sentUserId('chat', 'user-7')).toBe('user-7');
    expect(await sentUserId('messages', ALICE)).toBe(ALICE);
  });
});
