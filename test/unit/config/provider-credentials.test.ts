// Provider credentials fail closed (issue 33 item 4): an unset ${VAR} in a provider's key is a config
// error naming the provider and the variable, unless the provider says it needs none (`${VAR:-}`); a
// platform's auth mode is chosen by `auth` or by a key being given, never by an empty value; the
// embedded default still starts without any vendor key.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config/load-config.js';
import { embeddedDefaultNotes } from '../../../src/config/default-config.js';

function load(providers: string, env: Record<string, string> = {}) {
  const f = join(mkdtempSync(join(tmpdir(), 'switchyard-creds-')), 'switchyard.yaml');
  writeFileSync(f, `auth: { open: true }\nproviders:\n${providers}\nmodels: { m: { provider: p } }\n`);
  return loadConfig({ file: f, env });
}

function problems(providers: string, env: Record<string, string> = {}): readonly string[] {
  try {
    load(providers, env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('loaded');
}

describe('provider credentials', () => {
  it('an unset ${VAR} in api_key, api_keys or a header names the provider and the variable', () => {
    expect(problems('  p: { protocol: messages, base_url: "https://api.anthropic.com", api_key: "${ANTHROPIC_API_KEY}" }')).toEqual([
      'providers.p.api_key: ${ANTHROPIC_API_KEY} is not set, so provider p would send no credential; set it, or write ${ANTHROPIC_API_KEY:-} (an empty default) if provider p needs no key',
    ]);
    // Set but empty counts as unset (as for the gateway's own keys).
    expect(problems('  p: { protocol: responses, base_url: "https://api.openai.com/v1", api_key: "${OPENAI_API_KEY}" }', { OPENAI_API_KEY: '' })[0]).toMatch(
      /^providers\.p\.api_key: \$\{OPENAI_API_KEY\} is not set, so provider p would send no credential/,
    );
    expect(problems('  p: { protocol: chat, base_url: "http://a/v1", api_keys: [ "${K1}", "${K2}" ] }', { K1: 'one' })).toEqual([
      'providers.p.api_keys.1: ${K2} is not set, so provider p would send no credential; set it, or write ${K2:-} (an empty default) if provider p needs no key',
    ]);
    expect(problems('  p: { protocol: chat, base_url: "http://a/v1", headers: { authorization: "Bearer ${TOKEN}" } }')[0]).toMatch(
      /^providers\.p\.headers\.authorization: \$\{TOKEN\} is not set, so provider p would send that header without its value/,
    );
    // A literal empty key is a slip too.
    expect(problems('  p: { protocol: chat, base_url: "http://a/v1", api_key: "" }')).toEqual(['providers.p.api_key: empty; leave it out if provider p needs no key']);
  });

  it('a provider that needs no key leaves api_key out, or says so with ${VAR:-}', () => {
    expect(load('  p: { protocol: chat, base_url: "http://127.0.0.1:11434/v1" }').providers.get('p')!.apiKeys).toEqual([]);
    expect(load('  p: { protocol: chat, base_url: "http://127.0.0.1:11434/v1", api_key: "${OLLAMA_KEY:-}" }').providers.get('p')!.apiKeys).toEqual([]);
    expect(load('  p: { protocol: chat, base_url: "http://127.0.0.1:11434/v1", api_key: "${OLLAMA_KEY:-}" }', { OLLAMA_KEY: 'k' }).providers.get('p')!.apiKeys).toEqual(['k']);
    expect(load('  p: { protocol: messages, base_url: "https://api.anthropic.com", api_key: "${ANTHROPIC_API_KEY}" }', { ANTHROPIC_API_KEY: 'sk-ant' }).providers.get('p')!.apiKeys).toEqual(['sk-ant']);
  });

  it('Bedrock: an api_key given means auth api_key; unset is an error, never a silent switch to SigV4', () => {
    const bedrock = (rest: string) => `  p: { protocol: messages, platform: bedrock, region: us-east-1${rest} }`;
    expect(problems(bedrock(', api_key: "${AWS_BEARER_TOKEN_BEDROCK}"'))).toEqual([
      "providers.p.api_key: ${AWS_BEARER_TOKEN_BEDROCK} is not set, so provider p would send no credential; set it, or leave api_key out to use bedrock's own credentials",
    ]);
    expect(problems(bedrock(', api_key: "${AWS_BEARER_TOKEN_BEDROCK:-}"'))).toEqual([
      'providers.p.api_key: empty; with an api_key given, platform bedrock authenticates with it (an empty one never switches to aws): set it, or leave api_key out and write auth: aws',
    ]);
    expect(load(bedrock(', api_key: "${AWS_BEARER_TOKEN_BEDROCK}"'), { AWS_BEARER_TOKEN_BEDROCK: 't' }).providers.get('p')!.platform!.auth).toBe('api_key');
    expect(load(bedrock('')).providers.get('p')!.platform!.auth).toBe('aws');
    expect(load(bedrock(', auth: aws')).providers.get('p')!.platform!.auth).toBe('aws');
    expect(problems(bedrock(', auth: aws, api_key: t'))).toEqual(['providers.p.api_key: not used with auth aws; leave it out, or write auth: api_key']);
  });

  it('Azure: the same with Entra; Vertex takes no api_key', () => {
    const azure = (rest: string) => `  p: { protocol: responses, platform: azure, base_url: "https://r.openai.azure.com/openai/v1"${rest} }`;
    expect(problems(azure(', api_key: "${AZURE_OPENAI_API_KEY}"'))[0]).toMatch(/^providers\.p\.api_key: \$\{AZURE_OPENAI_API_KEY\} is not set, so provider p would send no credential/);
    expect(load(azure('')).providers.get('p')!.platform!.auth).toBe('entra');
    expect(load(azure(', api_key: k')).providers.get('p')!.platform!.auth).toBe('api_key');
    expect(problems(azure(', auth: entra, api_key: k'))).toEqual(['providers.p.api_key: not used with auth entra; leave it out, or write auth: api_key']);
    expect(problems('  p: { protocol: messages, platform: vertex, region: global, project: x, api_key: k }')[0]).toMatch(/^providers\.p\.api_key: not used by platform vertex/);
  });

  it('the embedded default starts without vendor keys: a vendor is routed only when its key is set', () => {
    for (const env of [{}, { ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '' }]) {
      const cfg = loadConfig({ env });
      expect([...cfg.providers.keys()]).toEqual(['demo']);
      expect(cfg.models.map((m) => m.name)).toEqual(['demo', 'demo-*']);
    }
    // The start-up log says what is not routed and why.
    expect(embeddedDefaultNotes({})).toEqual([
      'ANTHROPIC_API_KEY is not set: claude-* is not routed (set it and restart)',
      'OPENAI_API_KEY is not set: gpt-*, o<digit>*, codex-* are not routed (set it and restart)',
    ]);
    expect(embeddedDefaultNotes({ ANTHROPIC_API_KEY: 'a', OPENAI_API_KEY: 'o' })).toEqual([]);
    const withKey = loadConfig({ env: { ANTHROPIC_API_KEY: 'sk-ant' } });
    expect([...withKey.providers.keys()]).toEqual(['demo', 'anthropic']);
    expect(withKey.providers.get('anthropic')!.apiKeys).toEqual(['sk-ant']);
  });
});
