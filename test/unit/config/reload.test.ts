import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GatewayConfig } from '../../../src/config/types.js';
import { createConfigReloader, type ConfigReloader } from '../../../src/config/reload.js';

const yaml = (alias: string) => `
auth: { open: true }
providers:
  demo: { protocol: demo }
models:
  ${alias}: { provider: demo }
`;

async function waitFor(cond: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('config reloader', () => {
  let dir: string;
  let file: string;
  let applied: GatewayConfig[];
  let errors: string[];
  let reloader: ConfigReloader;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'switchyard-reload-'));
    file = join(dir, 'switchyard.yaml');
    writeFileSync(file, yaml('first'));
    applied = [];
    errors = [];
    reloader = createConfigReloader({
      file,
      env: {},
      apply: (c) => void applied.push(c),
      logger: { info: () => {}, error: (o) => void errors.push(String((o as { error: string }).error)) },
      debounceMs: 20,
    });
  });

  afterEach(() => {
    reloader.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('applies a valid file and refuses a bad one, keeping the running config', () => {
    expect(reloader.reload('test')).toEqual({ status: 'unchanged' });
    writeFileSync(file, yaml('second'));
    const ok = reloader.reload('test');
    expect(ok.status).toBe('applied');
    expect(applied.map((c) => c.models.map((m) => m.name))).toEqual([['second']]);

    writeFileSync(file, 'providers: {}\nmodels:\n  x: { provider: nowhere }\n');
    const bad = reloader.reload('test');
    expect(bad).toMatchObject({ status: 'refused' });
    expect((bad as { error: string }).error).toContain('models.x.provider: unknown provider "nowhere"');
    writeFileSync(file, 'models: [not: valid');
    expect(reloader.reload('test').status).toBe('refused');
    expect(applied).toHaveLength(1);
    expect(errors).toHaveLength(2);
    // SIGHUP forces a reload even when the text is unchanged (since the last good one).
    writeFileSync(file, yaml('second'));
    expect(reloader.reload('SIGHUP', true).status).toBe('applied');
  });

  it('reloads when the file is edited in place or replaced by rename, and ignores bad edits', async () => {
    reloader.watch();
    writeFileSync(file, yaml('edited'));
    await waitFor(() => applied.length === 1);
    expect(applied[0]!.models[0]!.name).toBe('edited');

    writeFileSync(file, 'providers: 42\n');
    await waitFor(() => errors.length === 1);
    expect(applied).toHaveLength(1);

    // Atomic replace (editors, config managers): a watch on the file itself would go deaf here.
    const tmp = join(dir, '.switchyard.yaml.tmp');
    writeFileSync(tmp, yaml('renamed'));
    renameSync(tmp, file);
    await waitFor(() => applied.length === 2);
    expect(applied[1]!.models[0]!.name).toBe('renamed');

    writeFileSync(tmp, yaml('again'));
    renameSync(tmp, file);
    await waitFor(() => applied.length === 3);
    expect(applied[2]!.models[0]!.name).toBe('again');

    // Other files in the directory do not trigger anything.
    writeFileSync(join(dir, 'unrelated.txt'), 'x');
    await new Promise((r) => setTimeout(r, 100));
    expect(applied).toHaveLength(3);
    expect(errors).toHaveLength(1);
  });

  it('refuses a reload that would open a gateway with keys, or whose key variable is unset, and logs why', () => {
    const keyed = (key: string) => `auth:\n  keys:\n    - { name: alice, key: "${key}" }\nproviders:\n  demo: { protocol: demo }\nmodels:\n  m: { provider: demo }\n`;
    writeFileSync(file, keyed('${ALICE_KEY}'));
    const closed = createConfigReloader({
      file,
      env: { ALICE_KEY: 'sk-alice-1' },
      apply: (c) => void applied.push(c),
      logger: { info: () => {}, error: (o) => void errors.push(String((o as { error: string }).error)) },
    });
    expect(closed.reload('SIGHUP', true).status).toBe('applied');
    // Key rotation to a variable this process does not have.
    writeFileSync(file, keyed('${ALICE_KEY_V2}'));
    const rotated = closed.reload('SIGHUP', true);
    expect(rotated).toMatchObject({ status: 'refused' });
    expect(errors.at(-1)).toBe('auth.keys.0 (alice): key is empty — is ${ALICE_KEY_V2} set?; to switch the entry off, write disabled: true');
    // Opening on purpose still needs a restart.
    writeFileSync(file, yaml('open'));
    expect(closed.reload('SIGHUP', true)).toMatchObject({ status: 'refused' });
    expect(errors.at(-1)).toContain('auth.open: true would open a gateway that requires keys');
    expect(applied).toHaveLength(1);
    expect(applied[0]!.authKeys.map((k) => k.name)).toEqual(['alice']);
    closed.close();
  });
});
