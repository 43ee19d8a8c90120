// An AWS `credential_process` run by the gateway instead of by the SDK's bare `exec`: in a process group
// of its own, killed with its whole group (the helper and whatever it started) when the credential fetch
// that asked for it reaches its deadline, and when the gateway exits. So a helper that hangs neither
// keeps the SDK's shared pending fetch alive (the next request runs it anew) nor outlives the gateway.
// The SDK (@aws-sdk/credential-provider-process) takes its `exec` from @smithy/core's
// externalDataInterceptor when one is set there; that instance is found from the SDK's own packages,
// so it is the one the chain reads. test/e2e/platforms/credential-deadlines.test.ts runs the real chain.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { credentialFetchSignal, MAX_CREDENTIAL_FETCH_MS } from './credential-deadline.js';

/** Credentials are a few hundred bytes; more than this is not an answer. */
const MAX_OUTPUT_BYTES = 1024 * 1024;

/** Process groups of helpers still running (their leader's pid). */
const running = new Set<number>();
let exitHookInstalled = false;

function killGroup(pgid: number): void {
  running.delete(pgid);
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Runs `command` through /bin/sh as `exec` would; resolves with its output once it exits with 0. */
export function runCredentialProcess(command: string): Promise<{ stdout: string; stderr: string }> {
  const signal = credentialFetchSignal();
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new Error('credential_process not started: its fetch is past its deadline'));
    const child = spawn('/bin/sh', ['-c', command], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const pgid = child.pid;
    if (pgid === undefined) {
      child.once('error', reject);
      return;
    }
    running.add(pgid);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let size = 0;
    let failure: Error | undefined;
    const stop = (why: string) => {
      failure ??= new Error(`credential_process stopped: ${why}`);
      killGroup(pgid);
    };
    const onAbort = () => stop('its fetch reached its deadline');
    // Outside a bounded fetch (an embedder's own use of the chain) it still has a bound.
    const bound = signal ? undefined : setTimeout(() => stop(`no answer within ${MAX_CREDENTIAL_FETCH_MS} ms`), MAX_CREDENTIAL_FETCH_MS);
    signal?.addEventListener('abort', onAbort, { once: true });
    const gather = (into: Buffer[]) => (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_OUTPUT_BYTES) stop('its output passed 1 MiB');
      else into.push(chunk);
    };
    child.stdout.on('data', gather(out));
    child.stderr.on('data', gather(err));
    child.once('error', (e) => stop(e.message));
    child.once('close', (code, sig) => {
      if (bound) clearTimeout(bound);
      signal?.removeEventListener('abort', onAbort);
      running.delete(pgid);
      // The helper's output is its credentials: never part of an error.
      if (failure) reject(failure);
      else if (code !== 0) reject(new Error(`credential_process exited with ${code ?? sig}`));
      else resolve({ stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
  });
}

/** The packages the default chain loads, in turn, down to the one that runs credential_process. */
const CHAIN = ['@aws-sdk/credential-providers', '@aws-sdk/credential-provider-node', '@aws-sdk/credential-provider-process'];

/**
 * Makes the AWS chain run credential_process through runCredentialProcess. False where it cannot (no
 * process groups on Windows; an SDK without the interceptor): the SDK's own exec then runs it, bounded
 * only by the fetch deadline's failure, not killed.
 */
export function installCredentialProcessRunner(): boolean {
  if (process.platform === 'win32') return false;
  let config: { externalDataInterceptor?: { interceptToken?(id: string, value: unknown): void } };
  try {
    let req = createRequire(import.meta.url);
    for (const pkg of CHAIN) req = createRequire(req.resolve(pkg));
    config = req('@smithy/core/config') as typeof config;
  } catch {
    return false;
  }
  const interceptor = config.externalDataInterceptor;
  if (typeof interceptor?.interceptToken !== 'function') return false;
  // The SDK promisifies what it finds: exec's callback form, and its promisified form under the custom symbol.
  const exec = (command: string, callback: (err: Error | null, result?: { stdout: string; stderr: string }) => void) => {
    runCredentialProcess(command).then((r) => callback(null, r), callback);
  };
  Object.defineProperty(exec, promisify.custom, { value: runCredentialProcess });
  interceptor.interceptToken('exec', exec);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => {
      for (const pgid of [...running]) killGroup(pgid);
    });
  }
  return true;
}

/** Helpers running now (tests). */
export function runningCredentialProcesses(): number {
  return running.size;
}
