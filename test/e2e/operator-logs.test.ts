// What the operator reads when requests fail (issue 33, item 3): a line per failed upstream attempt with
// the deployment, the upstream's status, a masked reason and why the router moved on; the final request
// line telling the whole story; and refusals of the gateway's own keys counted in
// switchyard_auth_failures_total{reason} and logged, rate-limited. The real gateway (buildApp, its pino
// options) in front of a scripted upstream that fails in three ways, called with the official SDKs; the
// log is pino's own output, captured.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { get } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type BuiltApp } from '../../src/app.js';
import { resolveConfig } from '../../src/config/load-config.js';
import { startScriptedUpstream, type ReceivedRequest, type Reply, type ScriptedUpstream } from '../support/scripted-upstream/index.js';
import { captureLogger, type CapturedLogger } from '../unit/observability/support.js';

const CALLER_KEY = 'caller-key-0123456789abcdef';
const ADMIN_KEY = 'admin-key-0123456789abcdef';
const FLAKY_KEY = 'flaky-upstream-secret-42';
/** The caller's prompt: an upstream quotes it back in its error; it must never reach the log. */
const PROMPT = 'the quarterly numbers for ACME are confidential, please summarise them for the board';
const OK: Reply = { kind: 'reply', blocks: [{ type: 'text', text: 'fine' }], usage: { input: 3, output: 1 } };

let upstream: ScriptedUpstream;
let gateway: BuiltApp;
let log: CapturedLogger;
let url: string;

/** Each upstream model fails its own way; `good` answers. */
function replyFor(req: ReceivedRequest): Reply {
  const model = String(req.body?.model ?? '');
  if (model === 'flaky-model') {
    return { kind: 'http-error', status: 503, type: 'overloaded_error', message: `overloaded while reading "${PROMPT}" with key ${FLAKY_KEY}` };
  }
  if (model === 'locked-model') {
    return { kind: 'http-error', status: 401, type: 'invalid_request_error', code: 'invalid_api_key', message: 'Incorrect API key provided: sk-proj-abcd************************wxyz.' };
  }
  if (model === 'picky-model') return { kind: 'http-error', status: 400, type: 'invalid_request_error', message: 'max_tokens: must be at most 4096' };
  return OK;
}

beforeAll(async () => {
  upstream = await startScriptedUpstream({ defaultReply: replyFor });
  const base = upstream.url;
  log = captureLogger('info');
  const config = resolveConfig(
    {
      server: { host: '127.0.0.1', port: 0 },
      log: { level: 'info' },
      // Served without a key (Host/Origin-guarded), so a rebound page's scrape meets the guard's 403.
      metrics: { public: true },
      auth: { keys: [{ name: 'caller', key: CALLER_KEY }], admin_keys: [{ name: 'ops', key: ADMIN_KEY }] },
      providers: {
        flaky: { protocol: 'messages', base_url: base, api_key: FLAKY_KEY, retry: { attempts: 2, backoff_ms: 5, max_backoff_ms: 10 } },
        locked: { protocol: 'responses', base_url: base + '/v1', api_key: 'locked-upstream-secret', retry: { attempts: 3, backoff_ms: 5 } },
        good: { protocol: 'chat', base_url: base + '/v1', api_key: 'good-upstream-secret', retry: { attempts: 1 } },
        picky: { protocol: 'messages', base_url: base, api_key: 'picky-upstream-secret', retry: { attempts: 3, backoff_ms: 5 } },
      },
      models: {
        smart: {
          strategy: 'fallback',
          targets: [
            { provider: 'flaky', model: 'flaky-model' },
            { provider: 'locked', model: 'locked-model' },
            { provider: 'good', model: 'good-model' },
          ],
        },
        doomed: { strategy: 'fallback', targets: [{ provider: 'flaky', model: 'flaky-model' }, { provider: 'locked', model: 'locked-model' }] },
        picky: { provider: 'picky', model: 'picky-model' },
        plain: { provider: 'good', model: 'good-model' },
      },
    },
    'test',
  );
  gateway = buildApp(config, { logger: log.logger });
  await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  gateway.setReady(true);
  const address = gateway.app.server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});

afterAll(async () => {
  await gateway?.app.close();
  await upstream?.close();
});

const anthropic = (key = CALLER_KEY) => new Anthropic({ baseURL: url, apiKey: key, maxRetries: 0, timeout: 10_000 });
const openai = (key = CALLER_KEY) => new OpenAI({ baseURL: url + '/v1', apiKey: key, maxRetries: 0, timeout: 10_000 });
type Line = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const linesOf = (requestId: string) => log.lines().filter((l) => l.requestId === requestId) as Line[];

/** Nothing secret and nothing of the prompt anywhere in the log. */
function expectClean(): void {
  const raw = log.raw();
  for (const secret of [CALLER_KEY, ADMIN_KEY, FLAKY_KEY, 'locked-upstream-secret', 'good-upstream-secret', 'wrong-key-0123456789', 'sk-proj-abcd']) {
    expect(raw, secret).not.toContain(secret);
  }
  expect(raw).not.toContain('quarterly numbers');
}

describe('request logs an operator can act on', () => {
  it('a fallback chain: one line per failed attempt, the router\'s reason for moving on, the final line telling the story', async () => {
    const { data, response } = await anthropic()
      .messages.create({ model: 'smart', max_tokens: 32, messages: [{ role: 'user', content: PROMPT }] })
      .withResponse();
    expect(data.content[0]).toMatchObject({ type: 'text', text: 'fine' });
    const requestId = response.headers.get('request-id')!;
    // The scripted upstream saw what the story says: flaky twice, locked once (its credentials were refused), good once.
    expect(upstream.received.map((r) => r.body?.model)).toEqual(['flaky-model', 'flaky-model', 'locked-model', 'good-model']);

    const failed = linesOf(requestId).filter((l) => l.msg === 'upstream attempt failed');
    expect(failed.map((l) => [l.level, l.deployment, l.attempt, l.upstreamStatus, l.errorKind, l.next, l.why])).toEqual([
      [40, 'flaky/flaky-model', 1, 503, 'overloaded', 'retry', 'transient'],
      [40, 'flaky/flaky-model', 2, 503, 'overloaded', 'fallback', 'retries_exhausted'],
      [40, 'locked/locked-model', 1, 401, 'bad_gateway', 'fallback', 'credentials_refused'],
    ]);
    expect(failed[0]!.waitMs).toBeGreaterThanOrEqual(2);
    expect(failed[0]!.modelLabel).toBe('smart');
    // The reason: the upstream's words, its key masked, the quoted prompt elided.
    expect(failed[0]!.reason).toBe(`overloaded while reading "[${PROMPT.length} characters]" with key [redacted]`);
    // The caller got the fixed credentials text; the operator gets the vendor's too (its key elision masked).
    expect(failed[2]!.reason).toMatch(/^upstream locked rejected the gateway's credentials \(HTTP 401\).* — upstream said: Incorrect API key provided: sk-\[redacted\]/);

    const [finished] = linesOf(requestId).filter((l) => l.msg === 'request finished');
    expect(finished).toMatchObject({ status: 200, provider: 'good', attempts: 4, retries: 1, fallbacks: 2 });
    expect(finished!.error).toBeUndefined();
    expect(finished!.attemptLog.map((e: Line) => [e.deployment, e.attempt, e.outcome, e.upstreamStatus, e.next, e.why])).toEqual([
      ['flaky/flaky-model', 1, 'overloaded', 503, 'retry', 'transient'],
      ['flaky/flaky-model', 2, 'overloaded', 503, 'fallback', 'retries_exhausted'],
      ['locked/locked-model', 1, 'bad_gateway', 401, 'fallback', 'credentials_refused'],
      ['good/good-model', 1, 'success', undefined, undefined, undefined],
    ]);
    expect(finished!.attemptLog[0].reason).toBe(failed[0]!.reason);
    expectClean();
  });

  it('every deployment failing: the final line has the error the caller got, and the attempts', async () => {
    upstream.received.length = 0;
    const err = await openai()
      .responses.create({ model: 'doomed', input: PROMPT })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    const requestId = (err as InstanceType<typeof OpenAI.APIError>).requestID!;
    // The caller's answer names the last deployment tried and the attempts, as a success's would.
    const headers = (err as InstanceType<typeof OpenAI.APIError>).headers!;
    expect([headers.get('x-switchyard-provider'), headers.get('x-switchyard-model'), headers.get('x-switchyard-attempts')]).toEqual(['locked', 'locked-model', '3']);
    const [finished] = linesOf(requestId).filter((l) => l.msg === 'request finished');
    expect(finished).toMatchObject({ status: 502, errorKind: 'bad_gateway', attempts: 3 });
    expect(finished!.error).toMatch(/^upstream locked rejected the gateway's credentials \(HTTP 401\)/);
    expect(finished!.attemptLog.map((e: Line) => `${e.deployment}#${e.attempt} ${e.next} ${e.why}`)).toEqual([
      'flaky/flaky-model#1 retry transient',
      'flaky/flaky-model#2 fallback retries_exhausted',
      'locked/locked-model#1 give_up credentials_refused',
    ]);
    expectClean();
  });

  it('an upstream refusing the caller\'s request: logged at info, not retried, its reason in the line', async () => {
    const err = await anthropic()
      .messages.create({ model: 'picky', max_tokens: 32, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    const requestId = (err as InstanceType<typeof Anthropic.APIError>).requestID!;
    const [failed] = linesOf(requestId).filter((l) => l.msg === 'upstream attempt failed');
    expect(failed).toMatchObject({ level: 30, deployment: 'picky/picky-model', upstreamStatus: 400, errorKind: 'invalid_request', next: 'give_up', why: 'not_retryable', reason: 'max_tokens: must be at most 4096' });
    const [finished] = linesOf(requestId).filter((l) => l.msg === 'request finished');
    expect(finished).toMatchObject({ status: 400, attempts: 1, error: 'max_tokens: must be at most 4096' });
  });

  it('a clean answer adds nothing (no attempt line, no attemptLog, no error); a refusal before any attempt has its error', async () => {
    const { response } = await anthropic().messages.create({ model: 'plain', max_tokens: 32, messages: [{ role: 'user', content: 'hi' }] }).withResponse();
    const clean = linesOf(response.headers.get('request-id')!);
    expect(clean.map((l) => l.msg)).toEqual(['request finished']);
    expect(clean[0]).toMatchObject({ status: 200, attempts: 1, provider: 'good' });
    expect(clean[0]!.attemptLog).toBeUndefined();
    expect(clean[0]!.error).toBeUndefined();

    const unknown = await anthropic().messages.create({ model: 'no-such-model', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(Anthropic.NotFoundError);
    // Refused before any attempt: no served-by headers (nothing was tried).
    expect((unknown as InstanceType<typeof Anthropic.APIError>).headers!.get('x-switchyard-attempts')).toBeNull();
    const [refused] = linesOf((unknown as InstanceType<typeof Anthropic.APIError>).requestID!);
    expect(refused).toMatchObject({ msg: 'request finished', status: 404, attempts: 0, errorKind: 'not_found' });
    expect(refused!.error).toMatch(/^model "no-such-model" is not available/);
    expect(refused!.attemptLog).toBeUndefined();
  });
});

describe('refusals of the gateway\'s own keys', () => {
  it('are counted by reason in switchyard_auth_failures_total and logged once per interval, never with the key', async () => {
    const before = log.lines().filter((l) => l.msg === 'authentication failed').length;
    for (let i = 0; i < 3; i++) {
      const e = await anthropic('wrong-key-0123456789').messages.create({ model: 'smart', max_tokens: 8, messages: [{ role: 'user', content: 'x' }] }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(Anthropic.AuthenticationError);
    }
    const missing = await fetch(url + '/v1/responses', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"model":"smart","input":"x"}' });
    expect(missing.status).toBe(401);
    // A caller key where an admin key is needed, and an admin key calling a model: 403 each.
    expect((await fetch(url + '/admin/usage', { headers: { 'x-api-key': CALLER_KEY } })).status).toBe(403);
    const adminCall = await anthropic(ADMIN_KEY).messages.create({ model: 'smart', max_tokens: 8, messages: [{ role: 'user', content: 'x' }] }).catch((x: unknown) => x);
    expect(adminCall).toBeInstanceOf(Anthropic.PermissionDeniedError);

    // A keyless /metrics named by a foreign Host (DNS rebinding): the Host/Origin guard's 403.
    const rebound = await new Promise<number>((resolve, reject) => {
      get(url + '/metrics', { headers: { host: 'rebound.example' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      }).on('error', reject);
    });
    expect(rebound).toBe(403);

    const metrics = await (await fetch(url + '/metrics', { headers: { 'x-api-key': ADMIN_KEY } })).text();
    expect(metrics).toContain('# TYPE switchyard_auth_failures_total counter');
    expect(metrics).toContain('switchyard_auth_failures_total{reason="invalid_key"} 3');
    expect(metrics).toContain('switchyard_auth_failures_total{reason="missing_key"} 1');
    expect(metrics).toContain('switchyard_auth_failures_total{reason="forbidden"} 2');
    expect(metrics).toContain('switchyard_auth_failures_total{reason="foreign_host"} 1');

    // Seven refusals within the interval: one line (the first), at warn, saying what and from where.
    const lines = log.lines().filter((l) => l.msg === 'authentication failed');
    expect(lines.length - before).toBe(1);
    expect(lines.at(-1)).toMatchObject({ level: 40, reason: 'invalid_key', status: 401, method: 'POST', path: '/v1/messages', remoteAddress: '127.0.0.1', suppressed: 0 });
    expectClean();
  });
});
