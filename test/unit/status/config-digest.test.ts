// The config fingerprint on the status page: changes with the configuration, not with where it was
// read from, and never with a secret (nothing on the page may confirm a guessed key).
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/load-config.js';
import { configDigest } from '../../../src/status/config-digest.js';

const raw = (over: { apiKey?: string; callerKey?: string; model?: string; header?: string; redis?: string } = {}) => ({
  providers: { up: { protocol: 'messages', base_url: 'http://127.0.0.1:1', api_key: over.apiKey ?? 'sk-up-1', headers: { 'x-token': over.header ?? 'h1' } } },
  models: { a: { provider: 'up', model: over.model ?? 'm1' } },
  auth: { keys: [{ name: 'ci', key: over.callerKey ?? 'k-caller-1' }] },
  state: { backend: 'redis', url: over.redis ?? 'redis://user:pw1@127.0.0.1:6379' },
});

describe('config digest', () => {
  it('is 12 hex characters, the same for the same config wherever it came from', () => {
    const d = configDigest(resolveConfig(raw(), '/etc/a.yaml'));
    expect(d).toMatch(/^[0-9a-f]{12}$/);
    expect(configDigest(resolveConfig(raw(), '/srv/b.yaml'))).toBe(d);
  });

  it('changes with a route, not with a key, a header value or a password', () => {
    const d = configDigest(resolveConfig(raw(), 't'));
    expect(configDigest(resolveConfig(raw({ model: 'm2' }), 't'))).not.toBe(d);
    expect(configDigest(resolveConfig(raw({ apiKey: 'sk-up-2' }), 't'))).toBe(d);
    expect(configDigest(resolveConfig(raw({ callerKey: 'k-caller-2' }), 't'))).toBe(d);
    expect(configDigest(resolveConfig(raw({ header: 'h2' }), 't'))).toBe(d);
    expect(configDigest(resolveConfig(raw({ redis: 'redis://user:pw2@127.0.0.1:6379' }), 't'))).toBe(d);
  });
});
