// A Kubernetes ConfigMap volume updates the way the kubelet's AtomicWriter does it: the files live in a
// timestamped directory (`..2026_11_26_07_00_00.000000001/`), `..data` is a symlink to it, and each key
// (`switchyard.yaml`) is a symlink to `..data/switchyard.yaml`. An update writes a new timestamped
// directory, points a `..data_tmp` symlink at it, renames `..data_tmp` over `..data` (one atomic step) and
// removes the old directory. The key's own symlink never changes, so a watch on the file sees nothing:
// the reloader must watch the directory.
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GatewayConfig } from '../../../src/config/types.js';
import { createConfigReloader, type ConfigReloader } from '../../../src/config/reload.js';

const yaml = (alias: string) => `auth: { open: true }\nproviders:\n  demo: { protocol: demo }\nmodels:\n  ${alias}: { provider: demo }\n`;

async function waitFor(cond: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('config reload from a Kubernetes ConfigMap volume', () => {
  let mount: string;
  let current: string;
  let version = 0;
  let applied: GatewayConfig[];
  let errors: string[];
  let reloader: ConfigReloader;

  /** One AtomicWriter update: new timestamped dir, ..data_tmp → it, rename over ..data, old dir removed. */
  const publish = (text: string) => {
    const dir = `..2026_11_26_07_00_00.${String(++version).padStart(9, '0')}`;
    mkdirSync(join(mount, dir));
    writeFileSync(join(mount, dir, 'switchyard.yaml'), text);
    symlinkSync(dir, join(mount, '..data_tmp'));
    renameSync(join(mount, '..data_tmp'), join(mount, '..data'));
    if (current) rmSync(join(mount, current), { recursive: true, force: true });
    current = dir;
  };

  beforeEach(() => {
    mount = mkdtempSync(join(tmpdir(), 'switchyard-configmap-'));
    current = '';
    publish(yaml('first'));
    symlinkSync('..data/switchyard.yaml', join(mount, 'switchyard.yaml'));
    applied = [];
    errors = [];
    reloader = createConfigReloader({
      file: join(mount, 'switchyard.yaml'),
      env: {},
      apply: (c) => void applied.push(c),
      logger: { info: () => {}, error: (o) => void errors.push(String((o as { error: string }).error)) },
      debounceMs: 50,
    });
    reloader.watch();
  });

  afterEach(() => {
    reloader.close();
    rmSync(mount, { recursive: true, force: true });
  });

  it('applies each swap of ..data once, refuses a bad one and keeps the running config, then takes the next good one', async () => {
    publish(yaml('second'));
    await waitFor(() => applied.length === 1);
    expect(applied[0]!.models[0]!.name).toBe('second');

    publish('providers: 42\n');
    await waitFor(() => errors.length === 1);
    expect(errors[0]).toMatch(/models|providers/);

    publish(yaml('third'));
    await waitFor(() => applied.length === 2);
    expect(applied[1]!.models[0]!.name).toBe('third');

    // The several directory events of one swap were debounced into one reload each.
    await new Promise((r) => setTimeout(r, 200));
    expect(applied.map((c) => c.models[0]!.name)).toEqual(['second', 'third']);
    expect(errors).toHaveLength(1);
  });

  it('a swap that leaves the file unchanged reloads nothing', async () => {
    publish(yaml('first'));
    await new Promise((r) => setTimeout(r, 300));
    expect(applied).toHaveLength(0);
    expect(errors).toHaveLength(0);
  });
});
