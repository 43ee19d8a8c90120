// Hostile input against the real gateway, on raw sockets: what Node's HTTP parser refuses before any
// route, bodies nested 10,000 deep, bodies over the limit. Each must be answered with a proper status
// in an envelope both SDKs parse, never fastify's default body, a 500, a reset or a hang; and nothing
// may reach the upstream.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { frameworkErrorOptions, REQUEST_RECEIVE_TIMEOUT_MS } from '../../../src/http/framework-errors.js';
import { MAX_JSON_DEPTH } from '../../../src/http/json-body.js';
import { MODELS, startHarness, type Harness } from '../../support/gateway-harness.js';
import { rawExchange } from '../../unit/support/raw-http.js';

let h: Harness;
let port: number;

beforeAll(async () => {
  h = await startHarness();
  port = Number(new URL(h.url).port);
});
afterAll(async () => {
  await h?.close();
});

/** The pre-route envelope: Anthropic's shape with OpenAI's `param`/`code` inside `error`. */
function expectBothSdkEnvelope(body: string, status: number, code: string): void {
  const parsed = JSON.parse(body) as { type: string; error: { type: string; message: string; param: null; code: string } };
  expect(parsed.type).toBe('error');
  expect(parsed.error.type).toBe(status === 413 ? 'request_too_large' : 'invalid_request_error');
  expect(parsed.error.message.length).toBeGreaterThan(10);
  expect(parsed.error.param).toBeNull();
  expect(parsed.error.code).toBe(code);
  expect(body).not.toContain('statusCode');
}

describe("Node's HTTP parser refusals get a status and a body both SDKs parse", () => {
  const many = Array.from({ length: 400 }, (_, i) => `X-Header-${i}: ${'v'.repeat(40)}\r\n`).join('');
  it.each<[string, string, number, string]>([
    ['a lower-case method', 'post /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', 400, 'invalid_method'],
    ['a made-up method', 'FROB /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', 400, 'invalid_method'],
    ['a NUL byte in a header', 'POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: ab\0cd\r\n\r\n', 400, 'invalid_header'],
    [
      'Content-Length with Transfer-Encoding',
      'POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      400,
      'invalid_framing',
    ],
    ['a 20 KB path', `GET /${'p'.repeat(20_000)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`, 414, 'uri_too_long'],
    ['a 64 KB header', `GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'b'.repeat(64 * 1024)}\r\n\r\n`, 431, 'headers_too_large'],
    ['400 headers (over the head size)', `GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\n${many}\r\n`, 431, 'headers_too_large'],
  ])('%s', async (_name, head, status, code) => {
    const res = await rawExchange(port, head);
    expect(res.error).toBeUndefined();
    expect(res.status).toBe(status);
    expect(res.text).toMatch(/\r\ncontent-type: application\/json\r\n/i);
    expectBothSdkEnvelope(res.body, status, code);
  });

  it('a body shorter than its Content-Length, then the end of the upload: 400, not a hang', async () => {
    const { connect } = await import('node:net');
    const answer = await new Promise<string>((resolve) => {
      const s = connect(port, '127.0.0.1');
      let out = '';
      s.on('data', (d) => (out += String(d)));
      s.on('close', () => resolve(out));
      s.on('error', () => resolve(out));
      s.end('POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"model":"x"}');
      setTimeout(() => s.destroy(), 5000);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expectBothSdkEnvelope(answer.slice(answer.indexOf('\r\n\r\n') + 4), 400, 'incomplete_body');
  }, 15_000);

  it('a request not received in time (Node\'s requestTimeout) gets 408 in the same envelope', async () => {
    // The timeout itself is minutes long; the answer to Node's timeout error is what is tested here,
    // on a real socket pair.
    const { createServer, connect } = await import('node:net');
    const server = createServer((socket) => {
      const err = Object.assign(new Error('Request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' });
      frameworkErrorOptions.clientErrorHandler!(err as never, socket);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const answer = await new Promise<string>((resolve) => {
      const s = connect((server.address() as { port: number }).port, '127.0.0.1');
      let out = '';
      s.on('data', (d) => (out += String(d)));
      s.on('close', () => resolve(out));
      s.write('POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 500\r\n\r\n{');
    });
    server.close();
    expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { type: string; error: { type: string; code: string } };
    expect([body.type, body.error.type, body.error.code]).toEqual(['error', 'timeout_error', 'request_timeout']);
    expect(h.gateway.app.server.requestTimeout).toBe(REQUEST_RECEIVE_TIMEOUT_MS);
  });

  it('a malformed URL escape on a known door answers in that door\'s envelope', async () => {
    const res = await rawExchange(port, 'POST /v1/responses/%zz HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n');
    expect(res.status).toBe(400);
    const body = JSON.parse(res.body) as { error: { type: string; message: string } };
    expect(body.error.type).toBe('invalid_request_error');
    expect(body.error.message).toMatch(/valid URL/);
  });

  it('the upstream received nothing from any of them', () => {
    expect(h.upstream.received).toHaveLength(0);
  });
});

describe(`JSON nested 10,000 deep: 400 naming the limit (${MAX_JSON_DEPTH}), never a 500`, () => {
  const deep = (n: number): string => '['.repeat(n) + ']'.repeat(n);
  const messagesBody = (inject: (deepJson: string) => string): string => inject(deep(10_000));
  const cases: [string, string, string][] = [
    [
      'messages: an unknown top-level field',
      '/v1/messages',
      messagesBody((d) => `{"model":"${MODELS.chat.alias}","max_tokens":64,"messages":[{"role":"user","content":"hi"}],"x_extra":${d}}`),
    ],
    [
      'messages: a tool schema',
      '/v1/messages',
      messagesBody(
        (d) =>
          `{"model":"${MODELS.messages.alias}","max_tokens":64,"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"t","input_schema":{"type":"object","properties":{"a":{"type":"array","items":${d}}}}}]}`,
      ),
    ],
    [
      'messages: a tool_use input',
      '/v1/messages',
      messagesBody(
        (d) =>
          `{"model":"${MODELS.responses.alias}","max_tokens":64,"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"t","input":{"a":${d}}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}]}]}`,
      ),
    ],
    ['responses: an unknown top-level field', '/v1/responses', messagesBody((d) => `{"model":"${MODELS.chat.alias}","input":"hi","x_extra":${d}}`)],
    [
      'responses: function parameters',
      '/v1/responses',
      messagesBody((d) => `{"model":"${MODELS.responses.alias}","input":"hi","tools":[{"type":"function","name":"f","parameters":{"type":"object","x":${d}}}]}`),
    ],
    [
      'responses: deep objects',
      '/v1/responses',
      `{"model":"${MODELS.messages.alias}","input":"hi","metadata":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`,
    ],
  ];
  it.each(cases)('%s', async (_name, path, body) => {
    const res = await fetch(h.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text).toContain(`nested deeper than ${MAX_JSON_DEPTH} levels`);
    const parsed = JSON.parse(text) as { type?: string; error: { type: string } };
    expect(parsed.error.type).toBe('invalid_request_error');
    if (path === '/v1/messages') expect(parsed.type).toBe('error');
  });

  it('nesting at the limit is still accepted by the parser (the doors then judge the shape)', async () => {
    const inner = '['.repeat(MAX_JSON_DEPTH - 2) + ']'.repeat(MAX_JSON_DEPTH - 2);
    const body = `{"model":"${MODELS.chat.alias}","max_tokens":16,"messages":[{"role":"user","content":"hi"}],"x_extra":${inner}}`;
    const res = await fetch(h.url + '/v1/messages', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(await res.text()).not.toContain('nested deeper');
  });

  it('a "__proto__" key is refused; the same text as a value is not', async () => {
    const bad = await fetch(h.url + '/v1/responses', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"model":"${MODELS.chat.alias}","input":"hi","__proto__":{"polluted":true}}`,
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toContain('__proto__');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('bodies over the limit: 413 in the caller\'s envelope, read to the end, no reset', () => {
  const total = 50 * 1024 * 1024;
  it.each<[string, string, boolean]>([
    ['messages door, Content-Length', '/v1/messages', false],
    ['responses door, chunked', '/v1/responses', true],
  ])('%s', async (_name, path, chunked) => {
    const framing = chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${total}`;
    const before = h.upstream.received.length;
    const res = await rawExchange(
      port,
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${framing}\r\n\r\n`,
      { bytes: total, chunked },
      30_000,
    );
    expect(res.error).toBeUndefined();
    expect(res.sent).toBeGreaterThanOrEqual(total);
    expect(res.status).toBe(413);
    const body = JSON.parse(res.body) as { type?: string; error: { type: string; code?: string; message: string } };
    if (path === '/v1/messages') {
      expect(body.type).toBe('error');
      expect(body.error.type).toBe('request_too_large');
    } else {
      expect(body.error.type).toBe('invalid_request_error');
      expect(body.error.code).toBe('request_too_large');
    }
    expect(h.upstream.received.length).toBe(before);
  }, 40_000);
});
