import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { FileStateStore } from '../../../src/state/file-store.js';
import { stateStoreContract } from './contract.js';

const root = mkdtempSync(join(tmpdir(), 'switchyard-state-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let seq = 0;
let lastDir = '';
let now = Date.now();

describe('file (LMDB) state store', () => {
  stateStoreContract({
    make: async (options) => {
      lastDir = join(root, `s${++seq}`);
      return new FileStateStore({ ...options, path: lastDir, now: () => now });
    },
    advance: async (ms) => {
      now += ms;
    },
    slackMs: 0,
    // Child processes read the real clock; the window in the race is a minute long, so they agree.
    shared: () => ['file', lastDir, ''],
  });

  it('keeps documents and counters across a restart', async () => {
    const dir = join(root, 'restart');
    const first = new FileStateStore({ path: dir });
    await first.putDoc('docs', 'kept', 'alice', Buffer.from('still here'), 60_000);
    await first.charge([{ kind: 'counter', key: 'spend', amount: 3, ttlMs: 60_000 }]);
    await first.close();
    const second = new FileStateStore({ path: dir });
    try {
      expect(Buffer.from((await second.getDoc('docs', 'kept', 'alice'))!).toString()).toBe('still here');
      expect(await second.readCounters(['spend'])).toEqual([3]);
    } finally {
      await second.close();
    }
  });
});

describe('file (LMDB) read freshness', () => {
  it('sees a write another process committed within the same event-loop turn', async () => {
    const dir = join(root, 'fresh');
    const store = new FileStateStore({ path: dir });
    try {
      expect(await store.getDoc('docs', 'x', 'owner-a')).toBeUndefined();
      // A synchronous child: no turn of our event loop passes between its commit and our read.
      const worker = fileURLToPath(new URL('./race-worker.ts', import.meta.url));
      execFileSync(process.execPath, ['--import', 'tsx', worker, 'file', dir, '', 'put', 'x', 'hello'], { timeout: 20_000 });
      expect(Buffer.from((await store.getDoc('docs', 'x', 'owner-a'))!).toString()).toBe('hello');
    } finally {
      await store.close();
    }
  });
});
