// Runs a client binary as a child in its own process group, bounded by a timeout. Only the group we started is
// ever signalled (by its pid), so the agent's own shell children die with it and nothing else is touched.
import { spawn } from 'node:child_process';

export interface BoundedRun {
  command: string;
  args: string[];
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** Set when the binary could not be started at all (ENOENT, EACCES, exec format error…). */
  spawnError?: string;
  stdout: string;
  stderr: string;
  durationMs: number;
}

export interface BoundedOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** Text written to stdin, then closed; default: stdin is /dev/null. */
  stdin?: string;
}

const OUTPUT_LIMIT = 4 * 1024 * 1024;

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (!pid) return;
  try {
    process.kill(-pid, signal); // the group created by `detached: true`, led by our child
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      /* already gone */
    }
  }
}

export function runBounded(command: string, args: string[], opts: BoundedOptions): Promise<BoundedRun> {
  const started = Date.now();
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let spawnError: string | undefined;
    let settled = false;
    const child = spawn(command, args, {
      cwd: opts.cwd,
      env: opts.env,
      detached: true,
      stdio: [opts.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    child.stdout?.setEncoding('utf8').on('data', (d: string) => {
      if (stdout.length < OUTPUT_LIMIT) stdout += d;
    });
    child.stderr?.setEncoding('utf8').on('data', (d: string) => {
      if (stderr.length < OUTPUT_LIMIT) stderr += d;
    });
    if (opts.stdin !== undefined && child.stdin) {
      child.stdin.on('error', () => {});
      child.stdin.end(opts.stdin);
    }
    let hardKill: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid, 'SIGTERM');
      hardKill = setTimeout(() => killGroup(child.pid, 'SIGKILL'), 3_000);
    }, opts.timeoutMs);
    const finish = (exitCode: number | null, signal: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (hardKill) clearTimeout(hardKill);
      killGroup(child.pid, 'SIGKILL'); // leftovers of our own group only (background shells the agent started)
      resolve({ command, args, exitCode, signal, timedOut, spawnError, stdout, stderr, durationMs: Date.now() - started });
    };
    child.on('error', (err) => {
      spawnError = `${err.name}: ${err.message}`;
      finish(null, null);
    });
    child.on('close', (code, signal) => finish(code, signal));
  });
}

/** The last `n` characters, for assertion messages. */
export function tail(text: string, n = 4_000): string {
  return text.length <= n ? text : `…(${text.length - n} chars cut)…\n` + text.slice(-n);
}
