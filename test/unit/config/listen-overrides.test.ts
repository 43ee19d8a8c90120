// SWITCHYARD_HOST and SWITCHYARD_PORT win over a config file's server.host and server.port (as they
// did for the embedded default only: a container's address silently lost to a mounted file's loopback),
// and the loaded config says where each came from, for the start-up line.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config/load-config.js';

const dir = mkdtempSync(join(tmpdir(), 'switchyard-listen-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const BODY = 'auth: { keys: [ { name: a, key: k-a } ] }\nproviders: { d: { protocol: demo } }\nmodels: { m: { provider: d } }\n';
function file(name: string, server: string): string {
  const path = join(dir, name);
  writeFileSync(path, server + BODY);
  return path;
}

describe('where the gateway listens', () => {
  const loopback = file('loopback.yaml', 'server: { host: 127.0.0.1, port: 9000, drain_delay_ms: 10 }\n');
  const bare = file('bare.yaml', '');

  it('the file says, when the variables are unset or empty', () => {
    for (const env of [{}, { SWITCHYARD_HOST: '', SWITCHYARD_PORT: '' }]) {
      const c = loadConfig({ file: loopback, env });
      expect([c.server.host, c.server.port]).toEqual(['127.0.0.1', 9000]);
      expect(c.listenFrom).toEqual({ host: 'server.host', port: 'server.port' });
    }
  });

  it('the variables win over the file, and the config says what they replaced; the rest of server stays', () => {
    const c = loadConfig({ file: loopback, env: { SWITCHYARD_HOST: '0.0.0.0', SWITCHYARD_PORT: '8080' } });
    expect([c.server.host, c.server.port, c.server.drainDelayMs]).toEqual(['0.0.0.0', 8080, 10]);
    expect(c.listenFrom).toEqual({ host: 'SWITCHYARD_HOST (over server.host: "127.0.0.1")', port: 'SWITCHYARD_PORT (over server.port: 9000)' });
  });

  it('a file without server: the variables, else the defaults 127.0.0.1:8080', () => {
    const set = loadConfig({ file: bare, env: { SWITCHYARD_PORT: '0' } });
    expect([set.server.host, set.server.port]).toEqual(['127.0.0.1', 0]);
    expect(set.listenFrom).toEqual({ host: 'default', port: 'SWITCHYARD_PORT' });
    const unset = loadConfig({ file: bare, env: {} });
    expect([unset.server.host, unset.server.port]).toEqual(['127.0.0.1', 8080]);
    expect(unset.listenFrom).toEqual({ host: 'default', port: 'default' });
  });

  it('the embedded default takes them too, and still refuses a non-loopback host (it has no keys)', () => {
    const c = loadConfig({ env: { SWITCHYARD_PORT: '9123' } });
    expect([c.server.host, c.server.port]).toEqual(['127.0.0.1', 9123]);
    expect(c.listenFrom).toEqual({ host: 'default', port: 'SWITCHYARD_PORT' });
    expect(() => loadConfig({ env: { SWITCHYARD_HOST: '0.0.0.0', ANTHROPIC_API_KEY: 'x' } })).toThrow(
      /^auth: no keys configured.*embedded default has no keys and is open only on a loopback SWITCHYARD_HOST/,
    );
  });

  it('a SWITCHYARD_PORT that is not a port is an error naming the variable', () => {
    for (const bad of ['abc', '80.5', '-1', '70000', '8080 ']) {
      for (const options of [{ file: loopback }, {}]) {
        expect(() => loadConfig({ ...options, env: { SWITCHYARD_PORT: bad } })).toThrow(ConfigError);
        expect(() => loadConfig({ ...options, env: { SWITCHYARD_PORT: bad } })).toThrow('SWITCHYARD_PORT: must be a port number from 0 to 65535');
      }
    }
  });
});
