// lmdb costs every process that loads it ~6 MiB RSS and a 16 MiB value buffer: only a gateway on the
// file backend may load it. Checked in fresh processes (a module, once imported, stays): the memory
// backend must not, and the file backend must, which shows the probe can see it.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const PROBE = fileURLToPath(new URL('./lmdb-probe.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'switchyard-lmdb-probe-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Probe {
  backend: string;
  resolved: number;
  lmdbModules: string[];
  lmdbAddons: string[];
}

function probe(backend: string): Promise<Probe> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', PROBE, backend, join(dir, backend)], { timeout: 30_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`probe ${backend} failed: ${err.message}\n${stderr}`));
      else resolve(JSON.parse(stdout.trim().split('\n').pop()!) as Probe);
    });
  });
}

describe('lmdb is loaded only by the file backend', () => {
  it('a memory-backend app does not import lmdb nor map its native addon; a file-backend app does both', { timeout: 60_000 }, async () => {
    const [memory, file] = await Promise.all([probe('memory'), probe('file')]);
    expect(memory.backend).toBe('memory');
    expect(memory.resolved).toBeGreaterThan(50); // the hook saw the app's own imports
    expect(memory.lmdbModules).toEqual([]);
    expect(memory.lmdbAddons).toEqual([]);

    expect(file.backend).toBe('file');
    expect(file.lmdbModules.some((u) => u.endsWith('/node_modules/lmdb/node-index.js'))).toBe(true);
    expect(file.lmdbAddons.length).toBeGreaterThan(0);
  });
});
