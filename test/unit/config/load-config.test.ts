import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, globToRegExp, loadConfig } from '../../../src/config/load-config.js';
import { interpolateString } from '../../../src/config/interpolate.js';

function writeConfig(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-config-'));
  const file = join(dir, 'config.yaml');
  writeFileSync(file, text);
  return file;
}

describe('configuration', () => {
  it('interpolates ${VAR} and ${VAR:-default} in values', () => {
    expect(interpolateString('a-${X}-b', { X: '1' })).toBe('a-1-b');
    expect(interpolateString('${MISSING:-fallback}', {})).toBe('fallback');
    expect(interpolateString('${EMPTY:-d}', { EMPTY: '' })).toBe('d');
    expect(interpolateString('${MISSING}', {})).toBe('');
  });

  it('loads the YAML shape of the README with defaults applied', () => {
    const file = writeConfig(`
server: { host: 127.0.0.1, port: 9999 }
auth: { keys: [ { name: team-a, key: "\${TEAM_A_KEY}" } ] }
providers:
  anthropic: { protocol: messages,  base_url: https://api.anthropic.com, api_key: "\${ANTHROPIC_API_KEY}" }
  openai:    { protocol: responses, base_url: https://api.openai.com/v1, api_key: "\${OPENAI_API_KEY}" }
  local:     { protocol: chat,      base_url: "http://127.0.0.1:11434/v1" }
models:
  claude-sonnet-4-5: { provider: anthropic }
  gpt-5:             { provider: openai }
  qwen:              { provider: local, model: "qwen2.5:7b" }
  "claude-*":        { provider: anthropic }
`);
    const cfg = loadConfig({ file, env: { TEAM_A_KEY: 'k-team', ANTHROPIC_API_KEY: 'sk-ant', OPENAI_API_KEY: 'sk-oai' } });
    expect(cfg.server.port).toBe(9999);
    expect(cfg.server.bodyLimitBytes).toBe(32 * 1024 * 1024);
    // The drain: 5 s of serving while the load balancer stops sending, then 10 s for running requests.
    expect([cfg.server.drainDelayMs, cfg.server.shutdownGraceMs]).toEqual([5000, 10_000]);
    expect(cfg.authKeys).toEqual([{ name: 'team-a', key: 'k-team' }]);
    const openai = cfg.providers.get('openai')!;
    expect(openai.origin).toBe('https://api.openai.com');
    expect(openai.basePath).toBe('/v1');
    expect(openai.apiKeys).toEqual(['sk-oai']);
    expect(cfg.providers.get('local')!.driverOptions.maxTokensField).toBe('max_tokens');
    expect(cfg.models.map((m) => m.name)).toEqual(['claude-sonnet-4-5', 'gpt-5', 'qwen', 'claude-*']);
    expect(cfg.models[2]!.targets[0]!.model).toBe('qwen2.5:7b');
    expect(cfg.models[0]!.targets[0]!.model).toBe('claude-sonnet-4-5');
    expect(cfg.models[3]!.targets[0]!.model).toBeUndefined();
  });

  it('fails fast with a message naming the key', () => {
    const bad = (yaml: string) => () => loadConfig({ file: writeConfig(yaml), env: {} });
    expect(bad('providers: { x: { protocol: grpc, base_url: "http://a" } }\nmodels: {}')).toThrow(/providers\.x\.protocol/);
    expect(bad('providers: { x: { protocol: chat } }\nmodels: {}')).toThrow(/providers\.x\.base_url: required/);
    expect(bad('providers: { x: { protocol: chat, base_url: "http://a" } }\nmodels: { m: { provider: y } }')).toThrow(
      /models\.m\.provider: unknown provider "y"/,
    );
    expect(bad('providers: {}\nmodels: {}\nsurprise: 1')).toThrow(ConfigError);
    expect(bad('providers: [')).toThrow(/not valid YAML/);
    expect(bad('server: { drain_delay_ms: -1 }\nproviders: {}\nmodels: {}')).toThrow(/server\.drain_delay_ms/);
    expect(loadConfig({ file: writeConfig('auth: { open: true }\nserver: { drain_delay_ms: 0 }\nproviders: { d: { protocol: demo } }\nmodels: { m: { provider: d } }'), env: {} }).server.drainDelayMs).toBe(0);
  });

  it('websocket: on by default; a misspelt or mistyped key is refused by name', () => {
    const load = (yaml: string) => loadConfig({ file: writeConfig('auth: { open: true }\nproviders: {}\nmodels: {}\n' + yaml), env: {} });
    expect(load('').websocket).toEqual({ enabled: true, connectionLimitMs: 3_600_000, idleTimeoutMs: 900_000, pingIntervalMs: 30_000 });
    expect(load('websocket: { enabled: false, idle_timeout_ms: 5000, ping_interval_ms: 1000, connection_limit_ms: 60000 }').websocket).toEqual({
      enabled: false,
      connectionLimitMs: 60_000,
      idleTimeoutMs: 5000,
      pingIntervalMs: 1000,
    });
    expect(() => load('websocket: { idle_timeout_ms: 10 }')).toThrow(/websocket\.idle_timeout_ms/);
    expect(() => load('websocket: { enable: false }')).toThrow("websocket.enable: unknown key; did you mean enabled?");
    expect(() => load('websocket: { enabled: "no" }')).toThrow("websocket.enabled: must be true or false (got text)");
  });

  it('the embedded default always has demo and switches vendors on with their keys', () => {
    const bare = loadConfig({ env: {} });
    expect([...bare.providers.keys()]).toEqual(['demo']);
    // Open, said explicitly, and only on loopback: on another address it does not load.
    expect(bare.auth.open).toBe(true);
    expect(bare.server.host).toBe('127.0.0.1');
    expect(() => loadConfig({ env: { SWITCHYARD_HOST: '0.0.0.0' } })).toThrow(/^auth: no keys configured.*embedded default.*loopback/);
    expect(() => loadConfig({ file: writeConfig('providers: { d: { protocol: demo } }\nmodels: { m: { provider: d } }\n'), env: {} })).toThrow(
      /^auth: no keys configured; add auth\.keys, or set auth\.open: true/,
    );
    expect(() =>
      loadConfig({ file: writeConfig('auth: { keys: [{ name: alice, key: "${ALICE_KEY}" }] }\nproviders: { d: { protocol: demo } }\nmodels: { m: { provider: d } }\n'), env: {} }),
    ).toThrow('auth.keys.0 (alice): key is empty — is ${ALICE_KEY} set?');
    const full = loadConfig({ env: { ANTHROPIC_API_KEY: 'a', OPENAI_API_KEY: 'o', OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' } });
    expect(full.providers.get('openai')!.baseUrl).toBe('http://127.0.0.1:1/v1');
    expect(full.providers.get('anthropic')!.baseUrl).toBe('https://api.anthropic.com');
    const names = full.models.map((m) => m.name);
    expect(names).toContain('claude-*');
    expect(names).toContain('o[0-9]*');
  });

  it('globs match the usual model families', () => {
    expect(globToRegExp('o[0-9]*').test('o3-mini')).toBe(true);
    expect(globToRegExp('o[0-9]*').test('omni')).toBe(false);
    expect(globToRegExp('claude-*').test('claude-sonnet-4-5-20250929')).toBe(true);
    expect(globToRegExp('gpt-4.1').test('gpt-401')).toBe(false);
  });
});
