// Claude on Vertex AI through the gateway, beyond the conformance matrix: what Vertex receives on the
// pass-through lane (lossless), count_tokens, Google's error shapes on both doors, token expiry under
// traffic, credentials Vertex refuses (circuit opens, the alias falls back), a token source that fails.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODELS } from '../../support/gateway-harness.js';
import { startVertexHarness, type VertexHarness } from '../../support/vertex-harness.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function post(h: VertexHarness, path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(h.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'caller-key', 'anthropic-version': '2023-06-01', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

describe('Vertex AI platform', () => {
  let h: VertexHarness;
  beforeAll(async () => {
    h = await startVertexHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('pass-through: the Messages body without model, with anthropic_version, thinking signatures, cache_control and unknown fields intact', async () => {
    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Done.' }] });
    const body = {
      model: MODELS.messages.alias,
      max_tokens: 2048,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral', ttl: '1h' } }],
      metadata: { user_id: 'u-1' },
      some_future_field: { nested: [1, 2.5, 'x'] },
      messages: [
        { role: 'user', content: 'First' },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 'hmm', signature: 'EqQBCkgIARABGAIiQL+sig==' }, { type: 'text', text: 'Ok' }] },
        { role: 'user', content: [{ type: 'text', text: 'Second', cache_control: { type: 'ephemeral' } }] },
      ],
    };
    const res = await post(h, '/v1/messages', body, { 'anthropic-beta': 'interleaved-thinking-2025-05-14' });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toMatchObject({ model: MODELS.messages.alias, content: [{ type: 'text', text: 'Done.' }] });
    const rec = h.vertex.received.at(-1)!;
    expect(rec.path).toBe(`/v1/projects/proj-1/locations/us-east5/publishers/anthropic/models/${MODELS.messages.upstream}:rawPredict`);
    const { model: _m, ...rest } = body;
    expect(rec.body).toEqual({ anthropic_version: 'vertex-2023-10-16', ...rest });
    expect(rec.headers['anthropic-beta']).toBe('interleaved-thinking-2025-05-14');
    expect(rec.headers['x-api-key']).toBeUndefined();
    expect(rec.headers['anthropic-version']).toBeUndefined();
    expect(rec.headers.authorization).toMatch(/^Bearer ya29\.fake-/);
    expect(h.metadata.lastScopes).toContain('https://www.googleapis.com/auth/cloud-platform');
  });

  it('count_tokens goes to the count-tokens publisher model, with the model in the body', async () => {
    const res = await post(h, '/v1/messages/count_tokens', { model: MODELS.messages.alias, messages: [{ role: 'user', content: 'Count these words please' }] });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text).input_tokens).toBeGreaterThan(0);
    const rec = h.vertex.received.at(-1)!;
    expect(rec).toMatchObject({ model: 'count-tokens', method: 'rawPredict', body: expect.objectContaining({ model: MODELS.messages.upstream, anthropic_version: 'vertex-2023-10-16' }) });
    expect(rec.refused).toBeUndefined();
  });

  it("Google's RESOURCE_EXHAUSTED is a 429 on both doors; NOT_FOUND a 404", async () => {
    h.vertex.enqueueGoogleError({ status: 429, name: 'RESOURCE_EXHAUSTED', message: 'Quota exceeded for aiplatform.googleapis.com/online_prediction_requests_per_base_model' });
    const m = await h.anthropic.messages.create({ model: MODELS.messages.alias, max_tokens: 8, messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e);
    expect(m).toMatchObject({ status: 429, error: { type: 'error', error: { type: 'rate_limit_error', message: expect.stringContaining('Quota exceeded') } } });
    h.vertex.enqueueGoogleError({ status: 429, name: 'RESOURCE_EXHAUSTED', message: 'Quota exceeded' });
    const r = await h.openai.responses.create({ model: MODELS.messages.alias, input: 'Hi', stream: true }).catch((e: unknown) => e);
    expect(r).toMatchObject({ status: 429 });
    h.vertex.enqueueGoogleError({ status: 404, name: 'NOT_FOUND', message: 'Publisher Model `claude-x` not found.' });
    const nf = await h.anthropic.messages.create({ model: MODELS.messages.alias, max_tokens: 8, messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e);
    expect(nf).toMatchObject({ status: 404, error: { error: { type: 'not_found_error' } } });
  });

  it('credentials Vertex refuses (403 PERMISSION_DENIED): the circuit opens and the alias falls back to the next target', async () => {
    const before = h.vertex.received.length;
    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'From the fallback.' }] });
    const first = await h.anthropic.messages.create({ model: 'claude-fallback', max_tokens: 8, messages: [{ role: 'user', content: 'Hi' }] });
    expect(first.content).toEqual([expect.objectContaining({ text: 'From the fallback.' })]);
    const refused = h.vertex.received.slice(before);
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ project: 'someone-elses-project', refused: 403 });
    expect(h.upstream.received.at(-1)!.body.model).toBe('claude-direct-1');
    // The deployment's circuit is open (failures: 1): the next request goes straight to the fallback.
    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Again.' }] });
    const second = await h.openai.responses.create({ model: 'claude-fallback', input: 'Hi' });
    expect(second.output_text).toBe('Again.');
    expect(h.vertex.received.length).toBe(before + 1);
    const metrics = await (await fetch(h.url + '/metrics')).text();
    expect(metrics).toMatch(/switchyard_deployment_circuit_state\{provider="vertex-denied",model="claude-denied@1"\} [12]/);
    expect(metrics).not.toMatch(/ya29\./);
  });
});

describe('Vertex AI platform: a token revoked before its expiry', () => {
  let h: VertexHarness;
  beforeAll(async () => {
    h = await startVertexHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('the refused token is dropped: one request fails (502), the next fetches a new token and succeeds', async () => {
    const ask = () => h.anthropic.messages.create({ model: MODELS.messages.alias, max_tokens: 8, messages: [{ role: 'user', content: 'Hi' }] });
    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'one' }] });
    await ask();
    expect(h.metadata.issued).toBe(1);
    await sleep(2100); // older than the refusals of requests still carrying a replaced token
    h.metadata.revokeAll(); // a rotated service account: the cached token is refused from now on
    const err = await ask().catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 502 });
    expect((err as { error: { error: { message: string } } }).error.error.message).toMatch(/vertex-claude: Vertex AI refused the deployment's Google credentials \(UNAUTHENTICATED\)/);
    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'two' }] });
    const ok = await ask();
    expect(ok.content).toEqual([expect.objectContaining({ text: 'two' })]);
    expect(h.metadata.issued).toBe(2);
  });
});

describe('Vertex AI platform: short-lived Google tokens', () => {
  let h: VertexHarness;
  beforeAll(async () => {
    h = await startVertexHarness({ tokenLifetimeSec: 2 });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('token expiry mid-traffic: no request fails, one refresh, however many requests wait', async () => {
    const ask = (i: number) =>
      i % 2 === 0
        ? h.anthropic.messages.create({ model: MODELS.messages.alias, max_tokens: 8, messages: [{ role: 'user', content: `Hi ${i}` }] }).then((m) => m.content.length)
        : h.openai.responses.create({ model: MODELS.messages.alias, input: `Hi ${i}`, store: false }).then((r) => r.output.length);
    // A first wave of 10 at once: they all wait on one token.
    const first = await Promise.all(Array.from({ length: 10 }, (_, i) => ask(i)));
    expect(first.every((n) => n > 0)).toBe(true);
    expect(h.metadata.issued).toBe(1);
    // Then a wave every 100 ms until 1.6 s into the token's life: past its refresh point (half its
    // life), not past the next token's own.
    const results: Array<Promise<number>> = [];
    const until = h.metadata.issuedAt[0]! + 1600;
    for (let i = 10; Date.now() < until; i += 5) {
      for (let j = 0; j < 5; j++) results.push(ask(i + j));
      await sleep(100);
    }
    expect(results.length).toBeGreaterThan(30);
    const settled = await Promise.allSettled(results);
    expect(settled.filter((s) => s.status === 'rejected')).toEqual([]);
    expect(h.metadata.issued).toBe(2);
    expect(h.vertex.received.filter((r) => r.refused !== undefined)).toEqual([]);
    expect(new Set(h.vertex.received.map((r) => r.headers.authorization)).size).toBe(2);
  });

  it('a token source that fails: a 502 naming the deployment and no secret; the fallback alias still answers', async () => {
    h.metadata.failing = true;
    await sleep(2100); // the cached token has expired
    const err = await h.anthropic.messages.create({ model: MODELS.messages.alias, max_tokens: 8, messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 502, error: { type: 'error', error: { type: 'api_error' } } });
    const message = (err as { error: { error: { message: string } } }).error.error.message;
    expect(message).toContain('vertex-claude');
    expect(message).toContain('could not get an access token');
    expect(message).not.toMatch(/ya29|127\.0\.0\.1/);
    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Fallback answered.' }] });
    const ok = await h.openai.responses.create({ model: 'claude-fallback', input: 'Hi', store: false });
    expect(ok.output_text).toBe('Fallback answered.');
    h.metadata.failing = false;
  });
});
