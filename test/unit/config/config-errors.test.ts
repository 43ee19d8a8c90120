// Config errors as an operator reads them (issue 33 item 6, review R6): every problem at once, the
// allowed values of a choice, the nearest key for a typo, never the offending value; `$VAR` without
// braces and a base_url that doubles the driver's path are refused.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config/load-config.js';
import { createConfigReloader } from '../../../src/config/reload.js';

function file(text: string): string {
  const f = join(mkdtempSync(join(tmpdir(), 'switchyard-errors-')), 'switchyard.yaml');
  writeFileSync(f, text);
  return f;
}

/** The problems a file raises (it must not load). */
function problems(text: string, env: Record<string, string> = {}): readonly string[] {
  try {
    loadConfig({ file: file(text), env });
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('the file loaded');
}

const OK_TAIL = 'auth: { open: true }\nmodels: { m: { provider: d } }\n';

describe('config errors', () => {
  it('a choice lists its allowed values (and the nearest one), not "Expected union value"', () => {
    expect(problems(`providers: { d: { protocol: openai } }\n${OK_TAIL}`)).toEqual([
      'providers.d.protocol: must be one of messages, responses, chat, gemini, demo (got text)',
    ]);
    expect(problems(`providers: { d: { protocol: demo } }\nauth: { open: true }\nmodels: { m: { provider: d, strategy: least_inflight } }\n`)).toEqual([
      'models.m.strategy: must be one of fallback, weighted, least-inflight (got text); did you mean least-inflight?',
    ]);
    expect(problems(`providers: { d: { protocol: chat, base_url: "http://a", stream_upstream: sometimes } }\n${OK_TAIL}`)).toEqual([
      'providers.d.stream_upstream: must be one of true, false, auto (got text)',
    ]);
    expect(problems(`providers: { d: { protocol: messages, platform: gcp } }\n${OK_TAIL}`)).toEqual([
      'providers.d.platform: must be one of bedrock, vertex, azure (got text)',
    ]);
  });

  it('reports every problem at once: all of the schema, or all of the resolution', () => {
    const schema = problems(`server: { port: high, hots: 0.0.0.0 }\nproviders: { a: { protocol: grpc }, b: null }\nauth: { open: yes }\nmodels: { m: { provider: a } }\n`);
    expect(schema).toEqual([
      'server.hots: unknown key; did you mean host?',
      'server.port: must be a whole number (got text)',
      'auth.open: must be true or false (got text)',
      'providers.a.protocol: must be one of messages, responses, chat, gemini, demo (got text)',
      'providers.b: must be a mapping of keys, but is empty (are the lines under it indented?)',
    ]);
    const resolution = problems(
      [
        'auth: { keys: [ { name: a, key: "${A_KEY}" }, { name: b, key_sha256: "9f86d0…" } ] }',
        'providers:',
        '  anthropic: { protocol: messages, base_url: "https://api.anthropic.com/v1" }',
        '  local: { protocol: chat }',
        'models:',
        '  x: { provider: antropic }',
        '  y: { provider: local }',
        '  z: { provider: anthropic, targets: [ { provider: anthropic } ] }',
      ].join('\n'),
    );
    expect(resolution).toEqual([
      'providers.anthropic.base_url: ends in /v1, but the messages protocol adds /v1/messages itself (every call would go to …/v1/v1/messages); drop the /v1',
      'providers.local.base_url: required for protocol chat',
      'models.x.provider: unknown provider "antropic" (known: anthropic, local); did you mean anthropic?',
      'models.z: give either provider or targets, not both',
      'auth.keys.0 (a): key is empty — is ${A_KEY} set?; to switch the entry off, write disabled: true',
      'auth.keys.1.key_sha256: must be 64 hex digits (the sha256 of the key)',
    ]);
    // One problem: the message is that problem, as before.
    expect(() => loadConfig({ file: file('providers: { d: { protocol: demo } }\nmodels: { m: { provider: d } }\n'), env: {} })).toThrow(/^auth: no keys configured/);
  });

  it('an unknown key gets the nearest known one, or the list of keys allowed there', () => {
    expect(problems(`providers: { d: { protocol: chat, base_url: "http://a", api-key: x } }\n${OK_TAIL}`)).toEqual(['providers.d.api-key: unknown key; did you mean api_key?']);
    expect(problems(`auth: { keys: [ { name: a, kye: x } ] }\nproviders: { d: { protocol: demo } }\nmodels: { m: { provider: d } }\n`)).toEqual([
      'auth.keys.0.kye: unknown key; did you mean key?',
    ]);
    expect(problems(`log: { colour: red }\nproviders: { d: { protocol: demo } }\n${OK_TAIL}`)).toEqual(['log.colour: unknown key (known here: level)']);
  });

  it('a missing section found deeper in the file is called an indentation slip', () => {
    expect(problems('auth: { open: true }\nproviders:\n  d: { protocol: demo }\n  models:\n    m: { provider: d }\n')).toContain(
      'models: missing (required); there is a providers.models in the file: is it indented too far?',
    );
  });

  it('R6: no error message carries the offending value, wherever a secret was put by mistake', () => {
    const SECRET = 'alice-NEW-secret-7f3a9c21d4';
    const cases = [
      `auth: { keys: [ { name: a, kee: ${SECRET} } ] }\nproviders: { d: { protocol: demo } }\nmodels: { m: { provider: d } }\n`,
      `auth: { keys: [ { name: a, key_sha256: ${SECRET} } ] }\nproviders: { d: { protocol: demo } }\nmodels: { m: { provider: d } }\n`,
      `auth: { keys: [ ${SECRET} ] }\nproviders: { d: { protocol: demo } }\nmodels: { m: { provider: d } }\n`,
      `providers: { d: { protocol: chat, base_url: "http://a", apikey: ${SECRET} } }\n${OK_TAIL}`,
      `providers: { d: { protocol: ${SECRET} } }\n${OK_TAIL}`,
      `providers: { d: { protocol: chat, base_url: ${SECRET} } }\n${OK_TAIL}`,
      `providers: { d: { protocol: chat, base_url: "http://a", api_key: [ ${SECRET} ] } }\n${OK_TAIL}`,
      `providers: { d: { protocol: chat, base_url: "http://a", headers: { x-key: [ ${SECRET} ] } } }\n${OK_TAIL}`,
      `state: { backend: redis, url: "${SECRET}" }\nproviders: { d: { protocol: demo } }\n${OK_TAIL}`,
      `server: { port: ${SECRET} }\nproviders: { d: { protocol: demo } }\n${OK_TAIL}`,
      // Broken YAML: the parser's excerpt of the line is left out.
      `auth:\n  keys:\n    - name: a\n      key: ${SECRET}\n     bad: [\n`,
    ];
    for (const text of cases) {
      const found = problems(text).join('\n');
      expect(found.length, text).toBeGreaterThan(0);
      expect(found, text).not.toContain(SECRET);
      expect(found, text).not.toContain('7f3a9c21d4');
    }
  });

  it('R6: a refused reload logs and reports the error without the value', () => {
    const SECRET = 'alice-NEW-secret-7f3a9c21d4';
    const f = file(`auth: { keys: [ { name: a, key: k-${'x'.repeat(40)} } ] }\nproviders: { d: { protocol: demo } }\nmodels: { m: { provider: d } }\n`);
    const logged: object[] = [];
    const outcomes: unknown[] = [];
    const reloader = createConfigReloader({
      file: f,
      env: {},
      apply: () => undefined,
      logger: { info: () => undefined, error: (o) => logged.push(o) },
      onOutcome: (o) => outcomes.push(o),
    });
    writeFileSync(f, `auth: { keys: [ { name: a, kee: ${SECRET} } ] }\nproviders: { d: { protocol: demo } }\nmodels: { m: { provider: d } }\n`);
    expect(reloader.reload('test', true)).toEqual({ status: 'refused', error: 'auth.keys.0.kee: unknown key; did you mean key?' });
    expect(JSON.stringify([logged, outcomes])).not.toContain(SECRET);
    expect(JSON.stringify(logged)).toContain('auth.keys.0.kee');
  });

  it('$VAR without braces is an error suggesting ${VAR}; ${VAR} and a literal $ elsewhere are not', () => {
    expect(problems(`auth: { keys: [ { name: a, key: "$TEAM_KEY" } ] }\nproviders: { d: { protocol: demo } }\nmodels: { m: { provider: d } }\n`, { TEAM_KEY: 'k' })).toEqual([
      'auth.keys.0.key: $TEAM_KEY is not replaced (only ${…} is); write ${TEAM_KEY}',
    ]);
    expect(problems(`providers: { d: { protocol: chat, base_url: "$OLLAMA_URL/v1" } }\n${OK_TAIL}`)[0]).toBe(
      'providers.d.base_url: $OLLAMA_URL is not replaced (only ${…} is); write ${OLLAMA_URL}',
    );
    const cfg = loadConfig({
      file: file(`auth: { keys: [ { name: a, key: "\${TEAM_KEY}" }, { name: b, key: "pa$$w0rd-x$Yz" }, { name: c, key: "\${NOPE:-$HOME_DIR}" } ] }\nproviders: { d: { protocol: demo } }\nmodels: { m: { provider: d } }\n`),
      env: { TEAM_KEY: 'k-team' },
    }).authKeys;
    expect(cfg.map((k) => k.key)).toEqual(['k-team', 'pa$$w0rd-x$Yz', '$HOME_DIR']);
  });

  it('a base_url the driver would double, or OpenAI without /v1, is refused', () => {
    const one = (p: string) => problems(`providers: { d: ${p} }\n${OK_TAIL}`);
    expect(one('{ protocol: messages, base_url: "https://api.anthropic.com/v1/", api_key: k }')[0]).toMatch(/^providers\.d\.base_url: ends in \/v1, but the messages protocol adds \/v1\/messages itself/);
    expect(one('{ protocol: messages, base_url: "https://api.anthropic.com/v1/messages", api_key: k }')[0]).toMatch(/^providers\.d\.base_url: ends in \/v1\/messages/);
    expect(one('{ protocol: responses, base_url: "https://api.openai.com/v1/responses", api_key: k }')[0]).toMatch(/^providers\.d\.base_url: ends in the endpoint/);
    expect(one('{ protocol: chat, base_url: "http://127.0.0.1:11434/v1/chat/completions" }')[0]).toMatch(/^providers\.d\.base_url: ends in the endpoint/);
    expect(one('{ protocol: responses, base_url: "https://api.openai.com", api_key: k }')).toEqual(["providers.d.base_url: OpenAI's API is under /v1 (https://api.openai.com/v1)"]);
    // What the SDKs' own conventions say loads.
    for (const p of ['{ protocol: messages, base_url: "https://api.anthropic.com", api_key: k }', '{ protocol: responses, base_url: "https://api.openai.com/v1", api_key: k }', '{ protocol: chat, base_url: "http://127.0.0.1:11434/v1" }']) {
      expect(loadConfig({ file: file(`providers: { d: ${p} }\n${OK_TAIL}`), env: {} }).providers.get('d')).toBeDefined();
    }
  });
});
