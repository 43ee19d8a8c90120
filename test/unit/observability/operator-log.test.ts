// The operator's side of a failure: the reason as logged (secrets masked before anything is cut, quoted
// text elided, bounded), the attempt story in the request line, and refusals of the gateway's keys logged
// at most once per interval with the count of those not logged. End to end: test/e2e/operator-logs.test.ts.
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/errors.js';
import { upstreamCredentialsRefused } from '../../../src/http/caller-safe-error.js';
import { AuthFailureLog, AUTH_LOG_INTERVAL_MS } from '../../../src/observability/auth-failure-log.js';
import { REDACTED, secretMasker } from '../../../src/observability/logger.js';
import { Observability } from '../../../src/observability/observer.js';
import { loggedReason, MAX_QUOTED_LENGTH, MAX_REASON_LENGTH, operatorReason } from '../../../src/observability/operator-reason.js';
import { MAX_LOGGED_ATTEMPTS, requestLineFields } from '../../../src/observability/request-line.js';
import { RequestRecord } from '../../../src/observability/request-record.js';
import { captureLogger, samples, valueOf } from './support.js';

const SECRET = 'provider-secret-0123456789';
const mask = secretMasker([SECRET]);

describe('the logged reason', () => {
  it('masks secrets before it cuts: a secret across the cut leaves nothing of itself', () => {
    const text = 'x'.repeat(MAX_REASON_LENGTH - 5) + SECRET + ' tail';
    const out = loggedReason(text, mask);
    expect(out).not.toContain(SECRET.slice(0, 5));
    expect(out.length).toBeLessThanOrEqual(MAX_REASON_LENGTH + 1);
    expect(out.endsWith('…')).toBe(true);
  });

  it('elides long quoted text (a prompt quoted back), keeps short quotes (field names, values)', () => {
    const prompt = 'p'.repeat(MAX_QUOTED_LENGTH + 1);
    expect(loggedReason(`Invalid 'input[0].content': "${prompt}" and '${prompt}' and \`${prompt}\``, mask)).toBe(
      `Invalid 'input[0].content': "[${prompt.length} characters]" and '[${prompt.length} characters]' and \`[${prompt.length} characters]\``,
    );
    const short = 'q'.repeat(MAX_QUOTED_LENGTH);
    expect(loggedReason(`model "${short}"`, mask)).toBe(`model "${short}"`);
    expect(loggedReason('two\nlines\u0000', mask)).toBe('two lines ');
  });

  it('a refused credential: the caller\'s fixed text plus what the vendor said', () => {
    const vendor = new GatewayError('authentication', 'invalid x-api-key', { upstreamStatus: 401 });
    const err = upstreamCredentialsRefused('anthropic', 401, vendor);
    expect(operatorReason(err)).toBe(`${err.message} — upstream said: invalid x-api-key`);
    expect(operatorReason(new GatewayError('timeout', 'upstream a did not answer in time'))).toBe('upstream a did not answer in time');
  });
});

describe('the request line tells the attempts', () => {
  it('lists each attempt (status, masked reason, next step, why) and the final error, bounded in count', () => {
    const rec = new RequestRecord('req_1', 'messages', 0);
    rec.status = 502;
    rec.errorKind = 'bad_gateway';
    rec.errorReason = `all failed with ${SECRET}`;
    rec.attemptLog = [
      { deployment: 'a/m', attempt: 1, outcome: 'overloaded', upstreamStatus: 503, reason: `busy ${SECRET}`, next: 'retry', why: 'transient', waitMs: 250 },
      { deployment: 'b/m', attempt: 1, outcome: 'skipped', why: 'circuit_open' },
    ];
    const d = { totalMs: 1, upstreamMs: -1, overheadMs: -1, ttftMs: -1 };
    const line = JSON.parse('{' + requestLineFields(rec, d, mask).slice(1) + '}');
    expect(line.error).toBe(`all failed with ${REDACTED}`);
    expect(line.attemptLog).toEqual([
      { deployment: 'a/m', attempt: 1, outcome: 'overloaded', upstreamStatus: 503, reason: `busy ${REDACTED}`, next: 'retry', why: 'transient', waitMs: 250 },
      { deployment: 'b/m', attempt: 1, outcome: 'skipped', why: 'circuit_open' },
    ]);
    rec.attemptLog = Array.from({ length: MAX_LOGGED_ATTEMPTS + 5 }, (_, i) => ({ deployment: 'a/m', attempt: i + 1, outcome: 'timeout' }));
    expect(JSON.parse('{' + requestLineFields(rec, d, mask).slice(1) + '}').attemptLog).toHaveLength(MAX_LOGGED_ATTEMPTS);
  });

  it('the observer logs a failed attempt at warn, one the caller caused at info, and keeps both in the story', () => {
    const log = captureLogger('info');
    const obs = new Observability({ metricsEnabled: false, logger: log.logger, secrets: [SECRET] });
    const rec = new RequestRecord('req_2', 'responses', 0);
    obs.attemptFailed(rec, { deployment: 'a/m', attempt: 1, outcome: 'timeout', reason: `slow ${SECRET}`, next: 'fallback', why: 'retries_exhausted' });
    obs.attemptFailed(rec, { deployment: 'b/m', attempt: 1, outcome: 'invalid_request', upstreamStatus: 400, reason: 'bad', next: 'give_up', why: 'not_retryable' });
    obs.attemptSucceeded(rec, 'c/m', 1);
    expect(log.lines().map((l) => [l.level, l.msg, l.deployment, l.reason])).toEqual([
      [40, 'upstream attempt failed', 'a/m', `slow ${REDACTED}`],
      [30, 'upstream attempt failed', 'b/m', 'bad'],
    ]);
    expect(rec.attemptLog?.map((e) => e.outcome)).toEqual(['timeout', 'invalid_request', 'success']);
    // A clean attempt alone starts no story.
    const clean = new RequestRecord('req_3', 'responses', 0);
    obs.attemptSucceeded(clean, 'c/m', 1);
    expect(clean.attemptLog).toBeUndefined();
  });
});

describe('refusals of the gateway\'s keys', () => {
  const refusal = { reason: 'invalid_key' as const, status: 401, method: 'POST', path: '/v1/messages', remoteAddress: '10.0.0.7', userAgent: 'curl/8' };

  it('one line per interval, the next one carrying how many were not logged', () => {
    const log = captureLogger('info');
    let now = 1_000;
    const l = new AuthFailureLog(log.logger, () => now);
    l.record(refusal);
    for (let i = 0; i < 41; i++) {
      now += 100;
      l.record({ ...refusal, reason: 'missing_key' });
    }
    expect(log.lines()).toHaveLength(1);
    now = 1_000 + AUTH_LOG_INTERVAL_MS;
    l.record({ ...refusal, reason: 'forbidden', status: 403 });
    expect(log.lines().map((x) => [x.level, x.msg, x.reason, x.status, x.suppressed, x.remoteAddress, x.userAgent])).toEqual([
      [40, 'authentication failed', 'invalid_key', 401, 0, '10.0.0.7', 'curl/8'],
      [40, 'authentication failed', 'forbidden', 403, 41, '10.0.0.7', 'curl/8'],
    ]);
  });

  it('every refusal counts in switchyard_auth_failures_total{reason}, logged or not; every reason shows from the start', async () => {
    const obs = new Observability({ metricsEnabled: true, logger: captureLogger('info').logger, processMetrics: false });
    const before = await samples(obs, 'switchyard_auth_failures_total');
    expect(before.map((s) => [s.labels.reason, s.value])).toEqual([
      ['missing_key', 0],
      ['invalid_key', 0],
      ['forbidden', 0],
      ['foreign_host', 0],
    ]);
    for (let i = 0; i < 5; i++) obs.recordAuthFailure(refusal);
    obs.recordAuthFailure({ ...refusal, reason: 'forbidden', status: 403 });
    const after = await samples(obs, 'switchyard_auth_failures_total');
    expect(valueOf(after, { reason: 'invalid_key' })).toBe(5);
    expect(valueOf(after, { reason: 'forbidden' })).toBe(1);
    expect(valueOf(after, { reason: 'missing_key' })).toBe(0);
  });
});
