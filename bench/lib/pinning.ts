// CPU pinning with taskset: the system under test alone on one CPU, everything else (load generator,
// fake upstream, idle proxies) on another. Affinity is changed per measurement (`taskset -a -p`, all
// threads), so every system under test gets the same CPU in turn.
import { execFileSync } from 'node:child_process';
import os from 'node:os';

export interface PinningInfo {
  enabled: boolean;
  reason: string;
  sutCpu: number | null;
  /** taskset CPU list for everything else, e.g. "1" or "1-3". */
  auxCpu: string | null;
}

function cpuListMax(list: string): number {
  return Math.max(...list.split(/[,-]/).map(Number));
}

export class Pinner {
  readonly info: PinningInfo;
  private readonly current = new Map<number, string>();
  /** This process's CPUs before any pinning (taskset's list), restored by `unpin`. */
  private startCpus = '';

  constructor(wanted: boolean, sutCpu = 0, auxCpu = '1') {
    if (!wanted) {
      this.info = { enabled: false, reason: 'disabled (--no-pin)', sutCpu: null, auxCpu: null };
      return;
    }
    if (process.platform !== 'linux') {
      this.info = { enabled: false, reason: `taskset unavailable on ${process.platform}`, sutCpu: null, auxCpu: null };
      return;
    }
    const cpus = os.availableParallelism();
    if (cpus < 2 || Math.max(sutCpu, cpuListMax(auxCpu)) >= cpus) {
      this.info = { enabled: false, reason: `needs 2 CPUs, have ${cpus}`, sutCpu: null, auxCpu: null };
      return;
    }
    try {
      // "pid N's current affinity list: 0,1"
      this.startCpus = execFileSync('taskset', ['-c', '-p', String(process.pid)], { encoding: 'utf8' }).trim().split(': ').pop()!;
    } catch {
      this.info = { enabled: false, reason: 'taskset not found (apt-get install util-linux)', sutCpu: null, auxCpu: null };
      return;
    }
    this.info = { enabled: true, reason: 'taskset', sutCpu, auxCpu };
  }

  private pin(pid: number, cpu: string): void {
    if (!this.info.enabled || this.current.get(pid) === cpu) return;
    try {
      execFileSync('taskset', ['-a', '-p', '-c', String(cpu), String(pid)], { stdio: 'ignore' });
      this.current.set(pid, cpu);
    } catch {
      // The process may have exited; measurements will show it.
    }
  }

  /** Let `pids` (this process included) run on every CPU again; children started after inherit it. */
  unpin(pids: number[]): void {
    if (!this.info.enabled) return;
    // The CPUs this process had at start: `os.availableParallelism()` counts the current affinity, which
    // after `arrange` is one CPU, and "0-0" put everything on the system-under-test's CPU.
    for (const pid of [process.pid, ...pids]) this.pin(pid, this.startCpus);
  }

  /** Put `sut` alone on the SUT CPU and every other pid (this process included) on the aux CPU. */
  arrange(sut: number | null, others: number[]): void {
    if (!this.info.enabled) return;
    this.pin(process.pid, this.info.auxCpu!);
    for (const pid of others) if (pid !== sut) this.pin(pid, this.info.auxCpu!);
    if (sut !== null) this.pin(sut, String(this.info.sutCpu!));
  }
}
