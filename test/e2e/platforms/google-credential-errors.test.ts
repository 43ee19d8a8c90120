// Google's credential and permission errors (review R8): Vertex AI's 403 PERMISSION_DENIED names the
// project, the resource path and the method; its 401 UNAUTHENTICATED, and the Gemini API's 400
// API_KEY_INVALID and 403 PERMISSION_DENIED, are about the gateway's own credentials too. The caller gets
// a fixed 502 that quotes none of Google's text, through both doors, streamed or not; the operator's log
// gets Google's text, once per refusal, naming the provider.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODELS, startHarness, type Harness } from '../../support/gateway-harness.js';
import { startVertexHarness, type VertexHarness } from '../../support/vertex-harness.js';
import { captureLogger, type CapturedLogger } from '../../unit/observability/support.js';

type Door = 'messages' | 'responses';

async function call(url: string, door: Door, model: string, stream: boolean): Promise<{ status: number; text: string }> {
  const body = door === 'messages' ? { model, max_tokens: 16, stream, messages: [{ role: 'user', content: 'hi' }] } : { model, input: 'hi', stream, store: false };
  const res = await fetch(`${url}/v1/${door}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'k' }, body: JSON.stringify(body) });
  return { status: res.status, text: await res.text() };
}

const PROJECT = 'acme-prod-ml-7731';
const DENIED = `Permission 'aiplatform.endpoints.predict' denied on resource '//aiplatform.googleapis.com/projects/${PROJECT}/locations/us-east5/publishers/anthropic/models/claude-x' (or it may not exist). Principal: gateway-sa@${PROJECT}.iam.gserviceaccount.com`;

/** The log lines saying the upstream refused the gateway's credentials. */
const refusals = (log: CapturedLogger) => log.lines().filter((l) => l.msg === "upstream refused the gateway's credentials");

describe('Vertex AI: permission and credential errors', () => {
  let h: VertexHarness;
  let log: CapturedLogger;
  beforeAll(async () => {
    log = captureLogger('info');
    h = await startVertexHarness({ logger: log.logger });
  });
  afterAll(async () => {
    await h?.close();
  });

  for (const door of ['messages', 'responses'] as Door[]) {
    for (const stream of [false, true]) {
      for (const [status, name] of [[403, 'PERMISSION_DENIED'], [401, 'UNAUTHENTICATED']] as const) {
        it(`${door} door, ${stream ? 'streamed' : 'not streamed'}, ${status} ${name}: fixed text for the caller, Google's in the log`, async () => {
          const before = refusals(log).length;
          h.vertex.enqueueGoogleError({ status, name, message: DENIED });
          const res = await call(h.url, door, MODELS.messages.alias, stream);
          expect(res.status).toBe(502);
          const error = (JSON.parse(res.text) as { error: { message: string; type: string } }).error;
          expect(error.message).toBe(`upstream vertex-claude: Vertex AI refused the deployment's Google credentials (${name})`);
          for (const leaked of [PROJECT, 'aiplatform', 'Principal', 'denied on resource']) expect(res.text).not.toContain(leaked);
          const logged = refusals(log).slice(before);
          expect(logged).toHaveLength(1);
          expect(logged[0]).toMatchObject({ level: 40, provider: 'vertex-claude', upstreamStatus: status });
          expect(JSON.stringify(logged[0])).toContain(`projects/${PROJECT}/locations/us-east5`);
        });
      }
    }
  }

  it('the fake refused exactly those requests with Google\'s text (what the gateway was sent back)', () => {
    expect(h.vertex.received.filter((r) => r.refused === 403 || r.refused === 401)).toHaveLength(8);
  });

  it('other Google errors keep their text (nothing to hide in a quota message)', async () => {
    h.vertex.enqueueGoogleError({ status: 429, name: 'RESOURCE_EXHAUSTED', message: 'Quota exceeded for aiplatform.googleapis.com/online_prediction_requests_per_base_model' });
    const res = await call(h.url, 'messages', MODELS.messages.alias, false);
    expect(res.status).toBe(429);
    expect(res.text).toContain('Vertex AI: Quota exceeded');
  });
});

describe('the Gemini API: a refused API key and a denied permission', () => {
  let h: Harness;
  let log: CapturedLogger;
  beforeAll(async () => {
    log = captureLogger('info');
    h = await startHarness({ logger: log.logger });
  });
  afterAll(async () => {
    await h?.close();
  });

  const cases = [
    { status: 400, code: 'API_KEY_INVALID', message: 'API key not valid. Please pass a valid API key.' },
    { status: 403, code: undefined, message: `Permission denied on resource project ${PROJECT}.` },
  ];
  for (const c of cases) {
    for (const door of ['messages', 'responses'] as Door[]) {
      it(`${door} door, HTTP ${c.status} ${c.code ?? 'PERMISSION_DENIED'}: fixed text, no Google text, logged`, async () => {
        const before = refusals(log).length;
        h.upstream.enqueue({ kind: 'http-error', status: c.status, message: c.message, code: c.code });
        const res = await call(h.url, door, MODELS.gemini.alias, false);
        expect(res.status).toBe(502);
        const error = (JSON.parse(res.text) as { error: { message: string } }).error;
        expect(error.message).toBe(`upstream up-gemini rejected the gateway's credentials (HTTP ${c.status}); the gateway's operator must fix its provider key`);
        expect(res.text).not.toContain(PROJECT);
        expect(res.text).not.toContain('API key not valid');
        expect(res.text).not.toContain('API_KEY_INVALID');
        const logged = refusals(log).slice(before);
        expect(logged).toHaveLength(1);
        expect(logged[0]).toMatchObject({ provider: 'up-gemini', upstreamStatus: c.status });
        expect(JSON.stringify(logged[0])).toContain(c.message);
      });
    }
  }

  it('a plain 400 stays the caller\'s own error, with its text', async () => {
    h.upstream.enqueue({ kind: 'http-error', status: 400, message: 'Invalid value at generation_config.temperature' });
    const res = await call(h.url, 'messages', MODELS.gemini.alias, false);
    expect(res.status).toBe(400);
    expect(res.text).toContain('Invalid value at generation_config.temperature');
  });
});
