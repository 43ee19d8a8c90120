import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/load-config.js';
import type { ProviderConfig } from '../../../src/config/types.js';
import { azurePlatform, decodeContentFilterError } from '../../../src/platforms/azure.js';
import type { PlatformRequest } from '../../../src/platforms/types.js';

const provider = (p: Record<string, unknown>): ProviderConfig =>
  resolveConfig({ auth: { open: true }, providers: { az: { platform: 'azure', ...p } }, models: { m: { provider: 'az', model: 'dep' } } }, 'test').providers.get('az')!;

const req = (path: string, body = '{"model":"gpt-x","input":"hi"}'): PlatformRequest => ({
  path,
  headers: { 'content-type': 'application/json', authorization: 'Bearer the-key' },
  body,
  model: 'gpt-x',
  stream: false,
  operation: 'generate',
});

describe('Azure OpenAI: addresses and auth', () => {
  it('v1 API: the driver path under …/openai/v1, the key as api-key', async () => {
    const p = azurePlatform(provider({ protocol: 'responses', base_url: 'https://r.openai.azure.com/openai/v1', api_key: 'the-key' }));
    const out = await p.prepare(req('/responses'));
    expect(out.path).toBe('/responses');
    expect(out.headers).toEqual({ 'content-type': 'application/json', 'api-key': 'the-key' });
    expect(out.body).toBe('{"model":"gpt-x","input":"hi"}');
  });

  it('deployment URLs: chat per deployment with api-version; Responses on the resource URL with the deployment as model', async () => {
    const chat = azurePlatform(provider({ protocol: 'chat', base_url: 'https://r.openai.azure.com', deployment: 'gpt 4o', api_version: '2024-10-21', api_key: 'the-key' }));
    expect((await chat.prepare(req('/chat/completions', '{"model":"gpt-x"}'))).path).toBe('/openai/deployments/gpt%204o/chat/completions?api-version=2024-10-21');
    const responses = azurePlatform(provider({ protocol: 'responses', base_url: 'https://r.openai.azure.com/openai', deployment: 'prod', api_version: '2025-04-01-preview', api_key: 'the-key' }));
    const out = await responses.prepare(req('/responses'));
    expect(out.path).toBe('/responses?api-version=2025-04-01-preview'); // base_url already ends in /openai
    expect(JSON.parse(out.body)).toEqual({ model: 'prod', input: 'hi' });
    expect((await responses.prepare(req('/responses/input_tokens'))).path).toBe('/responses/input_tokens?api-version=2025-04-01-preview');
  });

  it('a deployment under the v1 URL is a config error naming base_url', () => {
    expect(() => provider({ protocol: 'chat', base_url: 'https://r.openai.azure.com/openai/v1', deployment: 'd', api_version: '2024-10-21', api_key: 'k' })).toThrow(
      /providers\.az\.base_url: with deployment, the resource endpoint/,
    );
  });

  it('api_version without a deployment: the v1 API with that api-version (preview features)', async () => {
    const p = azurePlatform(provider({ protocol: 'responses', base_url: 'https://r.openai.azure.com/openai/v1', api_version: 'preview', api_key: 'k' }));
    expect((await p.prepare(req('/responses'))).path).toBe('/responses?api-version=preview');
  });

  it('entra: a bearer token from the credential, cached, one request to it however many wait', async () => {
    let calls = 0;
    const credential = {
      getToken: async () => {
        calls++;
        await new Promise((r) => setTimeout(r, 20));
        return { token: `entra-${calls}`, expiresOnTimestamp: Date.now() + 3600_000 };
      },
    };
    const p = azurePlatform(provider({ protocol: 'chat', base_url: 'https://r.openai.azure.com/openai/v1', auth: 'entra' }), credential);
    const all = await Promise.all(Array.from({ length: 20 }, () => p.prepare({ ...req('/chat/completions'), headers: { 'content-type': 'application/json' } })));
    expect(new Set(all.map((r) => r.headers.authorization))).toEqual(new Set(['Bearer entra-1']));
    expect(all[0]!.headers['api-key']).toBeUndefined();
    const again = p.prepare(req('/chat/completions'));
    expect(again).not.toBeInstanceOf(Promise); // cached: no await on the hot path
    expect(calls).toBe(1);
  });

  it('entra: a credential that fails is the deployment\'s 502-kind error, naming the provider, not the cause', async () => {
    const p = azurePlatform(provider({ protocol: 'chat', base_url: 'https://r.openai.azure.com/openai/v1', auth: 'entra' }), {
      getToken: async () => {
        throw new Error('AADSTS7000215: Invalid client secret provided: s3cr3t');
      },
    });
    const err = await Promise.resolve(p.prepare(req('/chat/completions'))).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'bad_gateway', upstreamStatus: 401, message: 'upstream az: Microsoft Entra credentials: could not get an access token' });
  });
});

describe('Azure OpenAI: the content filter', () => {
  const body = (results: Record<string, unknown>) =>
    JSON.stringify({ error: { message: 'The response was filtered…', type: null, param: 'prompt', code: 'content_filter', status: 400, innererror: { code: 'ResponsibleAIPolicyViolation', content_filter_result: results } } });

  it('names the categories that triggered', () => {
    const err = decodeContentFilterError(400, body({ hate: { filtered: false, severity: 'safe' }, sexual: { filtered: true, severity: 'medium' }, jailbreak: { filtered: true, detected: true } }))!;
    expect(err).toMatchObject({ kind: 'invalid_request', code: 'content_filter', param: 'prompt', upstreamStatus: 400 });
    expect(err.message).toBe("Azure OpenAI's content filter refused the prompt: sexual (severity medium), jailbreak (detected)");
    expect(decodeContentFilterError(400, body({}))!.message).toContain('unspecified categories');
  });

  it('leaves every other error to the driver', () => {
    expect(decodeContentFilterError(400, JSON.stringify({ error: { code: 'BadRequest', message: 'x' } }))).toBeUndefined();
    expect(decodeContentFilterError(401, body({}))).toBeUndefined();
    expect(decodeContentFilterError(400, 'content_filter but not JSON')).toBeUndefined();
  });
});
