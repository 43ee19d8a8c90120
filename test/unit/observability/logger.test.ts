import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/errors.js';
import { REDACTED, redactSecrets, secretMasker } from '../../../src/observability/logger.js';
import { Observability } from '../../../src/observability/observer.js';
import { RequestRecord } from '../../../src/observability/request-record.js';
import { captureLogger } from './support.js';

const BEARER_SECRET = 'sk-secret-caller-0123456789';
const API_KEY_SECRET = 'sk-ant-api03-secret-abcdef';
const PROVIDER_KEY = 'prov-key-9f8e7d6c5b4a';

describe('structured redaction', () => {
  it('never writes credentials carried in request headers', () => {
    const log = captureLogger();
    const headers = { authorization: `Bearer ${BEARER_SECRET}`, 'x-api-key': API_KEY_SECRET, 'content-type': 'application/json' };
    log.logger.info({ req: { method: 'POST', url: '/v1/messages', headers } }, 'incoming');
    log.logger.info({ headers }, 'bare headers');
    log.logger.info({ upstream: { headers: { ...headers, 'proxy-authorization': 'Basic abc' } } }, 'upstream request');
    log.logger.info({ provider: { name: 'up', apiKey: PROVIDER_KEY, api_key: PROVIDER_KEY, apiKeys: [PROVIDER_KEY] } }, 'provider');
    log.logger.info({ auth: { authKeys: [{ name: 'team', key: PROVIDER_KEY }] } }, 'auth');
    const raw = log.raw();
    for (const secret of [BEARER_SECRET, API_KEY_SECRET, PROVIDER_KEY, 'Basic abc']) expect(raw).not.toContain(secret);
    const lines = log.lines();
    expect(lines[0]).toMatchObject({ req: { headers: { authorization: REDACTED, 'x-api-key': REDACTED, 'content-type': 'application/json' } } });
    expect(lines[1]).toMatchObject({ headers: { authorization: REDACTED, 'x-api-key': REDACTED } });
    expect(lines[2]).toMatchObject({ upstream: { headers: { authorization: REDACTED, 'x-api-key': REDACTED, 'proxy-authorization': REDACTED } } });
    expect(lines[3]).toMatchObject({ provider: { name: 'up', apiKey: REDACTED, api_key: REDACTED, apiKeys: REDACTED } });
  });

  it('keeps secrets out of a real Fastify request log', async () => {
    const log = captureLogger('info');
    const app = Fastify({ loggerInstance: log.logger });
    app.post('/v1/messages', async (request) => {
      request.log.info({ headers: request.headers }, 'request headers');
      request.log.info({ req: { headers: request.headers } }, 'request again');
      return { ok: true };
    });
    try {
      const res = await app.inject({
        method: 'POST',
        url: '/v1/messages',
        headers: { authorization: `Bearer ${BEARER_SECRET}`, 'x-api-key': API_KEY_SECRET, 'content-type': 'application/json' },
        payload: '{}',
      });
      expect(res.statusCode).toBe(200);
    } finally {
      await app.close();
    }
    const raw = log.raw();
    expect(log.lines().length).toBeGreaterThanOrEqual(3);
    expect(raw).toContain('request headers');
    expect(raw).not.toContain(BEARER_SECRET);
    expect(raw).not.toContain(API_KEY_SECRET);
  });
});

describe('redactSecrets', () => {
  it('masks known secret values inside an upstream error message', () => {
    const body = `{"error":{"message":"Invalid key ${PROVIDER_KEY} for org; header was x-api-key: ${PROVIDER_KEY}"}}`;
    const out = redactSecrets(body, [PROVIDER_KEY]);
    expect(out).not.toContain(PROVIDER_KEY);
    expect(out).toBe(`{"error":{"message":"Invalid key ${REDACTED} for org; header was x-api-key: ${REDACTED}"}}`);
  });

  it('masks bearer tokens and sk- keys even when nobody configured them', () => {
    const out = redactSecrets(`Authorization: Bearer ${BEARER_SECRET}; Incorrect API key provided: sk-proj-ab******************xyZ1.`, []);
    expect(out).not.toContain('secret-caller');
    expect(out).not.toContain('xyZ1');
    expect(out).toContain(`Bearer ${REDACTED}`);
    expect(out).toContain(`sk-${REDACTED}`);
  });

  it('masks the longest secret first and treats regex characters literally', () => {
    const mask = secretMasker(['abcd', 'abcd.efgh+ij', 'a.b*c?']);
    expect(mask('x abcd.efgh+ij y abcd z a.b*c? w aXbbc')).toBe(`x ${REDACTED} y ${REDACTED} z ${REDACTED} w aXbbc`);
  });

  it('ignores secrets too short to mask without shredding text', () => {
    expect(redactSecrets('a key of abc', ['abc', ''])).toBe('a key of abc');
  });
});

describe('Observability error and log helpers', () => {
  it('safeError masks messages, stacks and causes', () => {
    const log = captureLogger();
    const obs = new Observability({ metricsEnabled: false, logger: log.logger, secrets: [PROVIDER_KEY] });
    const cause = new Error(`connect failed for https://user:${PROVIDER_KEY}@example.test`);
    const err = new GatewayError('bad_gateway', `upstream said: bad key ${PROVIDER_KEY}`, { upstreamStatus: 401, cause });
    const safe = obs.safeError(err);
    expect(safe).toMatchObject({ type: 'GatewayError', kind: 'bad_gateway', upstreamStatus: 401, message: `upstream said: bad key ${REDACTED}` });
    expect(JSON.stringify(safe)).not.toContain(PROVIDER_KEY);
    expect((safe.cause as Record<string, unknown>).message).toContain(REDACTED);
    log.logger.error({ err: safe }, 'unexpected failure');
    expect(log.raw()).not.toContain(PROVIDER_KEY);
    expect(obs.safeError('plain string with ' + PROVIDER_KEY)).toEqual({ type: 'string', message: `plain string with ${REDACTED}` });
  });

  it('the per-request line never carries configured secrets (setSecrets on reload included)', () => {
    const log = captureLogger();
    const obs = new Observability({ metricsEnabled: false, logger: log.logger });
    obs.setSecrets([PROVIDER_KEY]);
    const rec = new RequestRecord('req_x', 'messages', 0);
    rec.tEnd = 1;
    rec.warnings = [{ field: 'x', message: `upstream echoed ${PROVIDER_KEY}` }];
    obs.requestFinished(rec);
    expect(log.raw()).not.toContain(PROVIDER_KEY);
    expect(obs.redact(`k=${PROVIDER_KEY}`)).toBe(`k=${REDACTED}`);
  });

  it('logs nothing per stream event at info level', () => {
    const log = captureLogger('info');
    const obs = new Observability({ metricsEnabled: true, logger: log.logger, processMetrics: false });
    const rec = new RequestRecord('req_s', 'responses', 0);
    rec.status = 200;
    obs.requestStarted(rec);
    obs.streamOpened(rec);
    for (let i = 1; i <= 1000; i++) obs.eventWritten(rec, i);
    expect(log.raw()).toBe('');
    rec.tEnd = 1001;
    obs.requestFinished(rec);
    expect(log.lines()).toHaveLength(1);
  });
});
