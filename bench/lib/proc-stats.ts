// Per-process CPU time and memory from /proc (Linux), to show which side of a measurement was the
// bottleneck and to report the gateway's peak RSS (VmHWM).
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';

let clockTicks = 100;
try {
  clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
} catch {
  // keep the Linux default
}

/** CPU seconds (user + system) used so far by pid, or NaN when unreadable. */
export function cpuSeconds(pid: number): number {
  if (pid === process.pid) {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e6;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / clockTicks;
  } catch {
    return NaN;
  }
}

/**
 * CPU seconds used so far by pid's live threads, in nanoseconds of resolution: the sum of each thread's
 * on-CPU time (`/proc/PID/task/TID/schedstat`, first field, user and system together). For short
 * measurements where `/proc/PID/stat`'s 10 ms ticks are too coarse; a thread that exits takes its time
 * with it, so it is for processes whose threads live as long as they do (a node process's are). Falls back
 * to `cpuSeconds` where schedstat is missing.
 */
export function threadCpuSeconds(pid: number): number {
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ', 1)[0]);
      } catch {
        // the thread just ended
      }
    }
    return ns > 0 ? ns / 1e9 : cpuSeconds(pid);
  } catch {
    return cpuSeconds(pid);
  }
}

/** VmHWM (peak RSS) and VmRSS in MiB. */
export function memoryMiB(pid: number): { peakRssMiB: number; rssMiB: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => Number(/\s(\d+)\s*kB/.exec(status.split('\n').find((l) => l.startsWith(key)) ?? '')?.[1] ?? NaN);
    return { peakRssMiB: kb('VmHWM:') / 1024, rssMiB: kb('VmRSS:') / 1024 };
  } catch {
    return { peakRssMiB: NaN, rssMiB: NaN };
  }
}

/**
 * Starts a new peak for VmHWM (`echo 5 > /proc/PID/clear_refs`, Linux ≥ 4.0, our own child), so the
 * next reading is the peak of one phase; false when the kernel or permissions refuse.
 */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Busy and stolen CPU seconds of the whole machine so far (all CPUs), from /proc/stat. */
function machineSeconds(): { busy: number; steal: number } {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
    const [, user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).map(Number);
    return { busy: (user! + nice! + system! + irq! + softirq!) / clockTicks, steal: (steal ?? 0) / clockTicks };
  } catch {
    return { busy: NaN, steal: NaN };
  }
}

export interface CpuUse {
  /** CPU seconds (user + system) the system under test used over the interval. */
  sutCpuS: number;
  /** The system under test, % of one CPU. */
  sutCpuPct: number;
  /** Everything else of ours (load generator, upstreams, idle proxies), % of one CPU. */
  auxCpuPct: number;
  /** Processes that are not ours (a shared machine), % of one CPU: a noise indicator. */
  foreignCpuPct: number;
  /** Hypervisor steal, % of one CPU. */
  stealCpuPct: number;
}

/** CPU use of one pid, of a group, and of everything else, over an interval. */
export class CpuMeter {
  private readonly t0 = performance.now();
  private readonly sut0: number;
  private readonly aux0: number[];
  private readonly machine0 = machineSeconds();

  constructor(
    private readonly sut: number | null,
    private readonly aux: number[],
  ) {
    this.sut0 = sut === null ? NaN : cpuSeconds(sut);
    this.aux0 = aux.map(cpuSeconds);
  }

  stop(): CpuUse {
    const elapsed = (performance.now() - this.t0) / 1000;
    const sut = this.sut === null ? NaN : cpuSeconds(this.sut) - this.sut0;
    let aux = 0;
    this.aux.forEach((pid, i) => {
      const used = cpuSeconds(pid) - this.aux0[i]!;
      if (Number.isFinite(used)) aux += used;
    });
    const machine = machineSeconds();
    const busy = machine.busy - this.machine0.busy;
    const ours = (Number.isFinite(sut) ? sut : 0) + aux;
    return {
      sutCpuS: sut,
      sutCpuPct: (100 * sut) / elapsed,
      auxCpuPct: (100 * aux) / elapsed,
      foreignCpuPct: Math.max(0, (100 * (busy - ours)) / elapsed),
      stealCpuPct: (100 * (machine.steal - this.machine0.steal)) / elapsed,
    };
  }
}
