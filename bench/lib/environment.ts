// What the results were measured on: commit, Node, CPU, kernel, pinning.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';

export interface Environment {
  commit: string | null;
  dirty: boolean | null;
  node: string;
  v8: string;
  platform: string;
  kernel: string;
  cpuModel: string;
  cpus: number;
  memoryMiB: number;
  hostname: string;
}

function git(args: string[], cwd: string): string | null {
  try {
    return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

function cpuModel(): string {
  try {
    const info = readFileSync('/proc/cpuinfo', 'utf8');
    const line = info.split('\n').find((l) => l.startsWith('model name'));
    if (line) return line.slice(line.indexOf(':') + 1).trim();
  } catch {
    // not Linux
  }
  return os.cpus()[0]?.model ?? 'unknown';
}

export function collectEnvironment(repo: string): Environment {
  const status = git(['status', '--porcelain', '--untracked-files=no'], repo);
  return {
    commit: git(['rev-parse', 'HEAD'], repo),
    dirty: status === null ? null : status.length > 0,
    node: process.version,
    v8: process.versions.v8,
    platform: `${process.platform}-${process.arch}`,
    kernel: os.release(),
    cpuModel: cpuModel(),
    cpus: os.availableParallelism(),
    memoryMiB: Math.round(os.totalmem() / 1048576),
    hostname: os.hostname(),
  };
}
