// The bench's CPU pinning gives every CPU back: `unpin` after `arrange` restores the CPUs the process had
// at start (it once read the CPU count from the current, pinned affinity, and "unpinned" onto one CPU).
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { Pinner } from '../../../bench/lib/pinning.js';

const affinity = () => execFileSync('taskset', ['-c', '-p', String(process.pid)], { encoding: 'utf8' }).trim().split(': ').pop();
const usable = (() => {
  try {
    return process.platform === 'linux' && os.availableParallelism() >= 2 && affinity() !== undefined;
  } catch {
    return false;
  }
})();

describe.runIf(usable)('bench CPU pinning', () => {
  it('unpin restores the CPUs this process started with', () => {
    const start = affinity()!;
    const pinner = new Pinner(true, 0, '1');
    try {
      pinner.arrange(null, []);
      expect(affinity()).toBe('1');
      pinner.unpin([]);
      expect(affinity()).toBe(start);
    } finally {
      execFileSync('taskset', ['-a', '-p', '-c', start, String(process.pid)], { stdio: 'ignore' });
    }
  });
});
