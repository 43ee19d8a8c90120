// The count routes when the cloud credential source does not answer (issue 32, R1): a Google metadata
// server and an Azure managed-identity endpoint that accept the connection and never answer a token
// request. Every count route that fetches cloud credentials (Messages count_tokens on Vertex, the Gemini
// door's countTokens on Vertex, Responses input_tokens on Azure with Entra) answers the labelled estimate
// within its own bound (first_byte_ms here), well before the credential cache gives its fetch up
// (connect_ms), and the request is not left in flight. The generation routes' deadlines are in
// credential-deadlines.test.ts.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCredentialBlackhole, overrideEnv, type CredentialBlackhole } from '../../support/credential-blackhole.js';
import { startHarness, type Harness } from '../../support/gateway-harness.js';

/** The count route's own bound: first_byte_ms (capped at 30 s). */
const FIRST_BYTE_MS = 1000;
/** The credential caches' bound on a fetch, min(connect_ms, 10 s): far past the route's. */
const CONNECT_MS = 8000;
/** A loaded two-core machine. */
const SLACK_MS = 1500;
const KEY = 'sk-sy-count-deadline-key-000001';

let h: Harness;
let blackhole: CredentialBlackhole;
let restoreEnv: () => void;

beforeAll(async () => {
  blackhole = await startCredentialBlackhole();
  restoreEnv = overrideEnv({
    GCE_METADATA_HOST: blackhole.at,
    CLOUDSDK_CONFIG: mkdtempSync(join(tmpdir(), 'no-gcloud-')),
    GOOGLE_APPLICATION_CREDENTIALS: undefined,
    // Managed identity as App Service sets it (@azure/identity reads process.env itself).
    IDENTITY_ENDPOINT: `http://${blackhole.at}/msi/token`,
    IDENTITY_HEADER: 'identity-header-count-deadline',
    MSI_ENDPOINT: undefined,
    MSI_SECRET: undefined,
  });
  const timeouts = { first_byte_ms: FIRST_BYTE_MS, connect_ms: CONNECT_MS, total_ms: 20_000 };
  h = await startHarness({
    apiKey: KEY,
    config: () => ({
      auth: { keys: [{ name: 'counter', key: KEY, limits: { rpm: 1000 } }] },
      providers: {
        'vertex-claude': { protocol: 'messages', platform: 'vertex', project: 'proj-1', region: 'us-east5', base_url: 'http://127.0.0.1:1/v1', retry: { attempts: 1 }, timeouts },
        'vertex-gemini': { protocol: 'gemini', platform: 'vertex', project: 'proj-1', region: 'us-central1', base_url: 'http://127.0.0.1:1/v1', retry: { attempts: 1 }, timeouts },
        'azure-entra': { protocol: 'responses', platform: 'azure', base_url: 'http://127.0.0.1:1/openai/v1', auth: 'entra', retry: { attempts: 1 }, timeouts },
      },
      models: {
        claude: { provider: 'vertex-claude', model: 'claude-x@1' },
        gemini: { provider: 'vertex-gemini', model: 'gemini-2.5-flash' },
        gpt: { provider: 'azure-entra', model: 'gpt-entra' },
      },
    }),
  });
});
afterAll(async () => {
  await h?.close();
  await blackhole?.close();
  restoreEnv?.();
});

async function count(path: string, headers: Record<string, string>, body: unknown): Promise<{ status: number; ms: number; source: string | null; json: Record<string, unknown> }> {
  const t0 = Date.now();
  const res = await fetch(h.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(20_000),
  });
  const json = (await res.json()) as Record<string, unknown>;
  return { status: res.status, ms: Date.now() - t0, source: res.headers.get('x-switchyard-token-count'), json };
}

function expectBoundedEstimate(r: Awaited<ReturnType<typeof count>>, tokens: number): void {
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  expect(r.source).toBe('estimate');
  expect(tokens).toBeGreaterThan(0);
  expect(r.ms).toBeGreaterThanOrEqual(FIRST_BYTE_MS - 100);
  // The route's own bound, not the credential fetch's (CONNECT_MS).
  expect(r.ms).toBeLessThan(FIRST_BYTE_MS + SLACK_MS);
  expect(h.gateway.ctx.inFlight.size).toBe(0);
}

/** The token request may reach the blackhole after the answer does (a loaded machine): wait for it, briefly. */
async function heldMore(count: () => number, before: number): Promise<void> {
  for (let i = 0; i < 40 && count() <= before; i++) await new Promise((r) => setTimeout(r, 50));
  expect(count()).toBeGreaterThan(before);
}

describe('count routes with a credential source that never answers', () => {
  it('Messages count_tokens on Vertex (a Google token)', async () => {
    const before = blackhole.held.length;
    const r = await count('/v1/messages/count_tokens', { 'x-api-key': KEY, 'anthropic-version': '2023-06-01' }, { model: 'claude', messages: [{ role: 'user', content: 'Hi there' }] });
    expectBoundedEstimate(r, r.json.input_tokens as number);
    await heldMore(() => blackhole.held.length, before); // it did ask the metadata server for a token
  });

  it('Gemini countTokens on Vertex (a Google token)', async () => {
    const r = await count('/v1beta/models/gemini:countTokens', { 'x-goog-api-key': KEY }, { contents: [{ role: 'user', parts: [{ text: 'Hi there' }] }] });
    expectBoundedEstimate(r, r.json.totalTokens as number);
  });

  it('Responses input_tokens on Azure (an Entra token)', async () => {
    const before = blackhole.held.filter((p) => p.startsWith('/msi/')).length;
    const r = await count('/v1/responses/input_tokens', { authorization: `Bearer ${KEY}` }, { model: 'gpt', input: 'Hi there' });
    expectBoundedEstimate(r, r.json.input_tokens as number);
    await heldMore(() => blackhole.held.filter((p) => p.startsWith('/msi/')).length, before);
  });
});
