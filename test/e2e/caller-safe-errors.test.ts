// What an error tells the caller (issue 19, item 7): an upstream 401/403 is about the gateway's own
// provider key, so the caller gets a fixed 502 that names the provider, quotes nothing of the vendor's
// text (which echoes the key's prefix and suffix) and carries no `invalid_api_key` code (the caller's SDK
// would report its own key as wrong); and any other upstream text is masked before it leaves — HTTP
// errors and in-stream error events alike, through both doors, on both lanes.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODELS, startHarness, type Harness } from '../support/gateway-harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

type Door = 'messages' | 'responses';
const DOORS: Door[] = ['messages', 'responses'];
const UPSTREAMS = ['messages', 'responses'] as const;
const LEAKED = 'sk-proj-Ab3dEf9hIjKlMnOpQrStUvWx';
const CONFIGURED_KEY = (u: 'messages' | 'responses') => `upstream-key-${u}`;

async function call(door: Door, upstream: 'messages' | 'responses', stream: boolean): Promise<{ status: number; text: string }> {
  const model = MODELS[upstream].alias;
  const body =
    door === 'messages'
      ? { model, max_tokens: 64, stream, messages: [{ role: 'user', content: 'hi' }] }
      : { model, input: 'hi', stream, store: false };
  const res = await fetch(`${h.url}/v1/${door}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'k' }, body: JSON.stringify(body) });
  return { status: res.status, text: await res.text() };
}

describe('an upstream 401/403: a fixed message that does not blame the caller', () => {
  for (const upstream of UPSTREAMS) {
    for (const door of DOORS) {
      for (const stream of [false, true]) {
        for (const status of [401, 403]) {
          it(`${door} door → ${upstream} upstream, ${stream ? 'streamed' : 'not streamed'}, upstream ${status}`, async () => {
            h.upstream.enqueue({
              kind: 'http-error',
              status,
              type: upstream === 'messages' ? (status === 401 ? 'authentication_error' : 'permission_error') : 'invalid_request_error',
              code: 'invalid_api_key',
              message: `Incorrect API key provided: ${LEAKED.slice(0, 8)}********${LEAKED.slice(-4)}. Also ${CONFIGURED_KEY(upstream)}.`,
            });
            const res = await call(door, upstream, stream);
            expect(res.status).toBe(502);
            const parsed = JSON.parse(res.text) as { error: { message: string; code?: string | null; type: string } };
            expect(parsed.error.message).toBe(
              `upstream up-${upstream} rejected the gateway's credentials (HTTP ${status}); the gateway's operator must fix its provider key`,
            );
            expect(res.text).not.toContain('invalid_api_key');
            expect(res.text).not.toContain('sk-proj');
            expect(res.text).not.toContain(LEAKED.slice(-4));
            expect(res.text).not.toContain(CONFIGURED_KEY(upstream));
            if (door === 'responses') expect(parsed.error.code).toBe('server_error');
          });
        }
      }
    }
  }

  it('the official SDKs see a server error, not an AuthenticationError about their own key', async () => {
    h.upstream.enqueue({ kind: 'http-error', status: 401, type: 'invalid_request_error', code: 'invalid_api_key', message: `Incorrect API key provided: ${LEAKED}` });
    const viaOpenAI = await h.openai.responses.create({ model: MODELS.responses.alias, input: 'hi' }).catch((e: unknown) => e);
    expect(viaOpenAI).toBeInstanceOf(OpenAI.InternalServerError);
    expect(viaOpenAI).not.toBeInstanceOf(OpenAI.AuthenticationError);
    expect(String((viaOpenAI as Error).message)).not.toContain('sk-proj');
    h.upstream.enqueue({ kind: 'http-error', status: 401, type: 'authentication_error', message: 'invalid x-api-key' });
    const viaAnthropic = await h.anthropic.messages.create({ model: MODELS.messages.alias, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(viaAnthropic).toBeInstanceOf(Anthropic.InternalServerError);
    expect(viaAnthropic).not.toBeInstanceOf(Anthropic.AuthenticationError);
  });
});

describe('other upstream failures: the text reaches the caller masked', () => {
  const secretText = (u: 'messages' | 'responses') => `quota exhausted for ${LEAKED} (provider key ${CONFIGURED_KEY(u)})`;
  for (const upstream of UPSTREAMS) {
    for (const door of DOORS) {
      for (const stream of [false, true]) {
        it(`${door} door → ${upstream} upstream, ${stream ? 'in-stream error event' : 'HTTP error'}`, async () => {
          h.upstream.enqueue({ kind: 'fail-mid-stream', blocks: [{ type: 'text', text: 'partial ' }], message: secretText(upstream) });
          const res = await call(door, upstream, stream);
          expect(res.text).toContain('quota exhausted for');
          expect(res.text).toContain('[redacted]');
          expect(res.text).not.toContain(LEAKED.slice(3));
          expect(res.text).not.toContain(CONFIGURED_KEY(upstream));
          if (stream) {
            expect(res.status).toBe(200);
            expect(res.text).toMatch(/event: (error|response\.failed)/);
          } else {
            expect(res.status).toBeGreaterThanOrEqual(500);
          }
        });
      }
    }
  }
});
