// What an upgrade that is not accepted gets: a plain HTTP answer in OpenAI's envelope, before anything
// is upgraded. WebSocket mode off → 426 Upgrade Required (Codex falls back to HTTP at once; a 404 costs
// it five retries); a bad key → 401; a plain GET → 404.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startHarness, type Harness } from '../../support/gateway-harness.js';

interface Refusal {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Opens a WebSocket and expects the upgrade to be refused with an HTTP answer. */
export function refusedUpgrade(url: string, headers: Record<string, string> = {}): Promise<Refusal> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url.replace(/^http/, 'ws') + '/v1/responses', { headers });
    ws.on('open', () => reject(new Error('the upgrade was accepted')));
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    ws.on('error', () => undefined);
  });
}

describe('WebSocket mode switched off', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ config: () => ({ websocket: { enabled: false } }) });
  });
  afterAll(() => h.close());

  it('answers the upgrade 426 Upgrade Required in OpenAI’s envelope, never 404, and sends nothing upstream', async () => {
    const before = h.upstream.received.length;
    const r = await refusedUpgrade(h.url, { authorization: 'Bearer caller-key', 'openai-beta': 'responses_websockets=2026-02-06' });
    expect(r.status).toBe(426);
    expect(r.headers['x-request-id']).toMatch(/^req_/);
    expect(JSON.parse(r.body)).toEqual({
      error: { message: expect.stringContaining('websocket.enabled: false'), type: 'invalid_request_error', param: null, code: 'upgrade_required' },
    });
    expect(h.upstream.received.length).toBe(before);
  });

  it('a plain GET /v1/responses (no upgrade) stays a 404', async () => {
    const res = await fetch(h.url + '/v1/responses');
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { type: string } }).error.type).toBe('invalid_request_error');
  });
});

describe('an upgrade with a bad key', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ config: () => ({ auth: { keys: [{ name: 'k', key: 'sk-right-key' }] } }) });
  });
  afterAll(() => h.close());

  it('is refused 401 as HTTP, in OpenAI’s envelope, before the upgrade', async () => {
    const missing = await refusedUpgrade(h.url);
    expect(missing.status).toBe(401);
    expect(JSON.parse(missing.body).error.type).toBe('invalid_request_error');
    const wrong = await refusedUpgrade(h.url, { authorization: 'Bearer sk-wrong-key' });
    expect(wrong.status).toBe(401);
    expect(JSON.parse(wrong.body).error).toMatchObject({ code: 'invalid_api_key', message: 'invalid API key' });
    expect(wrong.body).not.toContain('sk-right-key');
  });
});
