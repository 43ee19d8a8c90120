import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig, resolveConfig } from '../../../src/config/load-config.js';
import { connectStateStore, createStateStore, stateNamespaces } from '../../../src/state/create-state-store.js';
import { StateUnavailableError } from '../../../src/state/types.js';

const base = { auth: { open: true }, providers: { p: { protocol: 'demo' } }, models: { m: { provider: 'p' } } };
const resolve = (extra: Record<string, unknown>) => resolveConfig({ ...base, ...extra }, 'test');

describe('state config', () => {
  it('defaults to memory, with the default path, prefix, required start and byte bounds per backend', () => {
    const c = resolve({});
    expect(c.state).toEqual({ backend: 'memory', path: './.switchyard/state', url: '', keyPrefix: 'switchyard:', required: true, opTimeoutMs: 1500 });
    expect(c.responsesStore).toEqual({ maxBytes: 64 * 1024 * 1024, ttlMs: 3_600_000, claimTtlMs: 30 * 24 * 3_600_000, ownerShare: 1 });
    expect(resolve({ state: { backend: 'file' } }).responsesStore.maxBytes).toBe(256 * 1024 * 1024);
    expect(resolve({ state: { backend: 'redis', url: 'redis://127.0.0.1:6379' } }).responsesStore.maxBytes).toBe(256 * 1024 * 1024);
  });

  it('several workers (defaultStateBackend file) default to the file backend; a configured backend wins', () => {
    const several = (extra: Record<string, unknown>) => resolveConfig({ ...base, ...extra }, 'test', 'file');
    expect(several({}).state).toMatchObject({ backend: 'file', path: './.switchyard/state' });
    expect(several({}).responsesStore.maxBytes).toBe(256 * 1024 * 1024);
    expect(several({ state: { path: './elsewhere' } }).state).toMatchObject({ backend: 'file', path: './elsewhere' });
    expect(several({ state: { backend: 'memory' } }).state.backend).toBe('memory');
    expect(several({ state: { backend: 'redis', url: 'redis://127.0.0.1:6379' } }).state.backend).toBe('redis');
  });

  it('owner_share gives the responses namespace its per-key bound; claim_ttl_ms is read; both validated', () => {
    const c = resolve({ responses_store: { max_bytes: 1_000_000, owner_share: 0.1, claim_ttl_ms: 86_400_000 } });
    expect(c.responsesStore).toMatchObject({ ownerShare: 0.1, claimTtlMs: 86_400_000 });
    expect(stateNamespaces(c)).toEqual([{ name: 'responses', maxBytes: 1_000_000, ownerMaxBytes: 100_000 }]);
    // Default: the whole store with one key or none, a quarter with several.
    expect(stateNamespaces(resolve({}))[0]!.ownerMaxBytes).toBe(64 * 1024 * 1024);
    const keys = [{ name: 'a', key: 'sk-a-1' }, { name: 'b', key: 'sk-b-1' }];
    expect(stateNamespaces(resolve({ auth: { keys } }))[0]!.ownerMaxBytes).toBe(16 * 1024 * 1024);
    for (const bad of [0, 1.5, -1]) expect(() => resolve({ responses_store: { owner_share: bad } })).toThrow(/owner_share/);
    expect(() => resolve({ responses_store: { claim_ttl_ms: 0 } })).toThrow(/claim_ttl_ms/);
  });

  it('refuses a max_entries count bound (nothing reads it); max_entries: 0 still switches storing off unless max_bytes is given', () => {
    expect(() => resolve({ responses_store: { max_entries: 10 } })).toThrow(/^responses_store\.max_entries: no longer supported .* use responses_store\.max_bytes/);
    expect(resolve({ responses_store: { max_entries: 0 } }).responsesStore.maxBytes).toBe(0);
    expect(resolve({ responses_store: { max_entries: 0, max_bytes: 1000 } }).responsesStore.maxBytes).toBe(1000);
  });

  it.each([
    [{ state: { backend: 'redis' } }, /^state\.url: required for backend redis/],
    [{ state: { backend: 'redis', url: 'not a url' } }, /^state\.url: not a URL/],
    [{ state: { backend: 'redis', url: 'http://127.0.0.1:6379' } }, /^state\.url: scheme must be redis:\/\/, rediss:\/\/ or redis\+cluster:\/\/, got http:/],
    [{ state: { backend: 'redis', url: 'redis+cluster://127.0.0.1:7000,127.0.0.1:x' } }, /^state\.url: bad cluster node '127\.0\.0\.1:x'/],
    [{ state: { backend: 'memory', url: 'redis://x:1' } }, /^state\.url: only used by backend redis/],
    [{ state: { backend: 'redis', url: 'redis://x:1', path: './s' } }, /^state\.path: only used by backend file/],
    [{ state: { backend: 'file', key_prefix: 'a:' } }, /^state\.key_prefix: only used by backend redis/],
    [{ state: { backend: 'sqlite' } }, /^state\.backend/],
    [{ state: { backend: 'file', flavour: 'x' } }, /^state/],
    [{ responses_store: { max_bytes: -1 } }, /^responses_store\.max_bytes/],
  ])('rejects %j with a message naming the key', (extra, message) => {
    expect(() => resolve(extra)).toThrow(ConfigError);
    expect(() => resolve(extra)).toThrow(message);
  });

  it('never echoes a redis password in an error', () => {
    expect(() => resolve({ state: { backend: 'redis', url: 'http://user:hunter2@host:1' } })).toThrow(/^(?!.*hunter2)/);
    expect(() => resolve({ state: { backend: 'redis', url: 'redis+cluster://user:hunter2@host:1,host:x' } })).toThrow(/^(?!.*hunter2)/);
  });

  it('accepts a Redis Cluster by its seed nodes', async () => {
    const c = resolve({ state: { backend: 'redis', url: 'redis+cluster://10.0.0.1:7000,10.0.0.2:7001' } });
    expect(c.state).toMatchObject({ backend: 'redis', url: 'redis+cluster://10.0.0.1:7000,10.0.0.2:7001' });
    const store = createStateStore(c);
    expect(store.backend).toBe('redis');
    await store.close();
  });
});

describe('the multi-instance example', () => {
  it('is a valid config that shares one Redis', () => {
    const file = fileURLToPath(new URL('../../../examples/multi-instance/switchyard.yaml', import.meta.url));
    const c = loadConfig({ file, env: { ALICE_KEY: 'sk-alice-example', ANTHROPIC_API_KEY: 'a', OPENAI_API_KEY: 'o' } });
    expect(c.state).toMatchObject({ backend: 'redis', url: 'redis://redis:6379', keyPrefix: 'switchyard:' });
    expect(c.server.host).toBe('0.0.0.0');
  });
});

describe('createStateStore / connectStateStore', () => {
  it('builds the configured backend', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchyard-factory-'));
    try {
      const memory = createStateStore(resolve({}));
      const file = createStateStore(resolve({ state: { backend: 'file', path: dir } }));
      expect([memory.backend, file.backend]).toEqual(['memory', 'file']);
      await file.putDoc('responses', 'r', 'o', Buffer.from('x'), 1000);
      await Promise.all([memory.close(), file.close()]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a file backend whose directory cannot be made fails the start-up check, not the build, unless required is false', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchyard-factory-'));
    try {
      const blocked = join(dir, 'not-a-dir');
      writeFileSync(blocked, '');
      const config = resolve({ state: { backend: 'file', path: join(blocked, 'state') } });
      const store = createStateStore(config); // lmdb opens in the background: nothing thrown here
      const err = await connectStateStore(store, config).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StateUnavailableError);
      expect((err as Error).message).toMatch(/^state store unavailable \(file, ping\): ENOTDIR.*set state\.required: false to start anyway/);
      const heard: string[] = [];
      await expect(connectStateStore(store, { state: { ...config.state, required: false } }, (e) => heard.push(e.op))).resolves.toBeUndefined();
      expect(heard).toEqual(['ping']);
      await store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails start-up fast with a clear message when Redis does not answer, unless required is false', async () => {
    const config = resolve({ state: { backend: 'redis', url: 'redis://:secretpw@127.0.0.1:1', op_timeout_ms: 300 } });
    const store = createStateStore(config);
    try {
      const err = await connectStateStore(store, config).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StateUnavailableError);
      expect((err as Error).message).toMatch(/state store unavailable \(redis at redis:\/\/:\*\*\*@127\.0\.0\.1:1.*set state\.required: false to start anyway/);
      expect((err as Error).message).not.toContain('secretpw');

      const lenient = { state: { ...config.state, required: false } };
      const heard: string[] = [];
      await expect(connectStateStore(store, lenient, (e) => heard.push(e.op))).resolves.toBeUndefined();
      expect(heard).toEqual(['ping']);
    } finally {
      await store.close();
    }
  });
});
