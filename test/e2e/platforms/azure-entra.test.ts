// Entra tokens through the gateway, in a file of its own: @azure/identity's managed-identity client keeps
// its tokens beyond one credential object, so a fresh process (vitest runs each file in its own) makes
// sure every token here comes from this file's identity fake. Short-lived tokens: expiry under traffic
// (no request fails, one refresh however many wait), and an identity endpoint that fails.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAzureHarness, type AzureHarness } from '../../support/azure-harness.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Azure OpenAI platform: short-lived Entra tokens', () => {
  let h: AzureHarness;
  beforeAll(async () => {
    h = await startAzureHarness({ tokenLifetimeSec: 4 });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('token expiry mid-traffic: no request fails, one refresh, however many requests wait', async () => {
    const ask = (i: number) =>
      i % 2 === 0
        ? h.anthropic.messages.create({ model: 'azure-entra', max_tokens: 8, messages: [{ role: 'user', content: `Hi ${i}` }] }).then((m) => m.content.length)
        : h.openai.responses.create({ model: 'azure-entra', input: `Hi ${i}`, store: false }).then((r) => r.output.length);
    const first = await Promise.all(Array.from({ length: 10 }, (_, i) => ask(i)));
    expect(first.every((n) => n > 0)).toBe(true);
    expect(h.identity.issued).toBe(1);
    // expires_on is in whole seconds: the first token lives 3–4 s and is refreshed at half its life
    // (1.5–2 s); waves until 2.9 s in cross that point and stop before the second token's (3 s at least).
    const results: Array<Promise<number>> = [];
    const until = h.identity.issuedAt[0]! + 2900;
    for (let i = 10; Date.now() < until; i += 5) {
      for (let j = 0; j < 5; j++) results.push(ask(i + j));
      await sleep(100);
    }
    expect(results.length).toBeGreaterThan(10);
    const settled = await Promise.allSettled(results);
    expect(settled.filter((s) => s.status === 'rejected')).toEqual([]);
    // One refresh per half-life, however many requests wait: on a slow run the last waves reach the
    // cache after the second token's own refresh point too, so a third token is allowed, but no two
    // tokens closer than a half-life apart (a stampede would issue several within milliseconds).
    expect(h.identity.issued).toBeGreaterThanOrEqual(2);
    const at = h.identity.issuedAt;
    for (let i = 1; i < at.length; i++) expect(at[i]! - at[i - 1]!, `token ${i + 1} of ${at.length}`).toBeGreaterThanOrEqual(1400);
    expect(h.azure.received.filter((r) => r.refused !== undefined)).toEqual([]);
  });

  it('an identity endpoint that fails: a 502 naming the deployment and no secret', async () => {
    h.identity.failing = true;
    await sleep(4100);
    const err = await h.openai.responses.create({ model: 'azure-entra', input: 'Hi', store: false }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 502 });
    const message = (err as { error: { message: string } }).error.message;
    expect(message).toContain('azure-entra');
    expect(message).toContain('Microsoft Entra credentials: could not get an access token');
    expect(message).not.toContain(h.identity.header);
    h.identity.failing = false;
  });
});
