import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/load-config.js';

const withProvider = (provider: Record<string, unknown>) =>
  resolveConfig({ auth: { keys: [{ name: 'a', key: 'sk-test-a' }] }, providers: { p: provider }, models: { m: { provider: 'p', model: 'x' } } }, 'test');

describe('providers.<name>.platform', () => {
  it('a first-party provider has no platform and refuses platform-only settings', () => {
    expect(withProvider({ protocol: 'messages', base_url: 'https://api.anthropic.com' }).providers.get('p')!.platform).toBeUndefined();
    expect(() => withProvider({ protocol: 'messages', base_url: 'https://api.anthropic.com', region: 'us-east-1' })).toThrow(
      /providers\.p\.region: only used with a platform/,
    );
  });

  it('bedrock: region required, base URL derived, aws credentials unless an API key is given', () => {
    const p = withProvider({ protocol: 'messages', platform: 'bedrock', region: 'eu-west-1' }).providers.get('p')!;
    expect(p.platform).toMatchObject({ kind: 'bedrock', region: 'eu-west-1', auth: 'aws' });
    expect(p.origin).toBe('https://bedrock-runtime.eu-west-1.amazonaws.com');
    expect(withProvider({ protocol: 'messages', platform: 'bedrock', region: 'eu-west-1', api_key: 'k' }).providers.get('p')!.platform!.auth).toBe('api_key');
    expect(() => withProvider({ protocol: 'messages', platform: 'bedrock' })).toThrow(/providers\.p\.region: required for platform bedrock/);
    expect(() => withProvider({ protocol: 'responses', platform: 'bedrock', region: 'x' })).toThrow(/serves protocol messages, not responses/);
    expect(() => withProvider({ protocol: 'messages', platform: 'bedrock', region: 'x', project: 'p' })).toThrow(/project: not used by platform bedrock/);
  });

  it('vertex serves Gemini too; a first-party Gemini provider defaults to the Gemini API', () => {
    expect(withProvider({ protocol: 'gemini', platform: 'vertex', region: 'us-central1', project: 'proj' }).providers.get('p')!.origin).toBe('https://us-central1-aiplatform.googleapis.com');
    expect(withProvider({ protocol: 'gemini', api_key: 'k' }).providers.get('p')!.baseUrl).toBe('https://generativelanguage.googleapis.com/v1beta');
    expect(() => withProvider({ protocol: 'gemini', platform: 'bedrock', region: 'x' })).toThrow(/serves protocol messages, not gemini/);
  });

  it('vertex: project and region required; the global location has its own host', () => {
    const p = withProvider({ protocol: 'messages', platform: 'vertex', region: 'global', project: 'proj' }).providers.get('p')!;
    expect(p.baseUrl).toBe('https://aiplatform.googleapis.com/v1');
    expect(withProvider({ protocol: 'messages', platform: 'vertex', region: 'us-east5', project: 'proj' }).providers.get('p')!.origin).toBe(
      'https://us-east5-aiplatform.googleapis.com',
    );
    expect(() => withProvider({ protocol: 'messages', platform: 'vertex', region: 'us-east5' })).toThrow(/project: required/);
    expect(() => withProvider({ protocol: 'messages', platform: 'vertex', region: 'us-east5', project: 'p', auth: 'aws' })).toThrow(/authenticates with google/);
  });

  it('azure: base_url required, api_key or entra, api_version with a deployment', () => {
    expect(() => withProvider({ protocol: 'chat', platform: 'azure', api_key: 'k' })).toThrow(/base_url: required for protocol chat on platform azure/);
    const p = withProvider({ protocol: 'chat', platform: 'azure', base_url: 'https://r.openai.azure.com', deployment: 'gpt', api_version: '2024-10-21', api_key: 'k' });
    expect(p.providers.get('p')!.platform).toMatchObject({ kind: 'azure', deployment: 'gpt', apiVersion: '2024-10-21', auth: 'api_key' });
    expect(withProvider({ protocol: 'responses', platform: 'azure', base_url: 'https://r.openai.azure.com/openai/v1' }).providers.get('p')!.platform!.auth).toBe('entra');
    expect(() => withProvider({ protocol: 'chat', platform: 'azure', base_url: 'https://r.openai.azure.com', deployment: 'gpt', api_key: 'k' })).toThrow(
      /api_version: required with deployment/,
    );
    expect(() => withProvider({ protocol: 'chat', platform: 'azure', base_url: 'https://r.openai.azure.com', auth: 'api_key' })).toThrow(/api_key: required for auth api_key/);
  });
});
