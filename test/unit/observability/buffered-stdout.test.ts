// The default log destination (buffered stdout) in a real child process: a quiet process's lines still
// appear within LOG_FLUSH_MS (bounded staleness), lines logged at a moderate rate leave in a few
// writes rather than one each, and whatever is buffered when the process exits is written, not lost.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LOG_FLUSH_MS } from '../../../src/observability/logger.js';

const LOGGER = path.resolve(fileURLToPath(new URL('../../../src/observability/logger.ts', import.meta.url)));

interface Run {
  /** stdout chunks, each with ms since the child reported its lines were logged. */
  chunks: { at: number; text: string }[];
  code: number | null;
  stderr: string;
}

/** Run `body` in a child with `logger` = createLogger('info'); it prints "logged" on stderr when done logging. */
function runChild(body: string, timeoutMs = 10_000): Promise<Run> {
  const script = `import { createLogger } from ${JSON.stringify(LOGGER)};\nconst logger = createLogger('info');\n${body}`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Run['chunks'] = [];
    let loggedAt = -1;
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`child timed out; stderr: ${stderr}`));
    }, timeoutMs);
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => {
      stderr += d;
      if (loggedAt < 0 && stderr.includes('logged')) loggedAt = performance.now();
    });
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => chunks.push({ at: loggedAt < 0 ? -1 : performance.now() - loggedAt, text: d }));
    child.on('exit', (code) => {
      clearTimeout(timer);
      // Let the pipe drain into 'data' before resolving.
      setImmediate(() => resolve({ chunks, code, stderr }));
    });
  });
}

function lines(run: Run): Record<string, unknown>[] {
  return run.chunks
    .map((c) => c.text)
    .join('')
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('buffered stdout log destination', () => {
  it('writes a quiet process\'s line within the flush period, while the process keeps running', async () => {
    const run = await runChild(`logger.info({ n: 1 }, 'one line');\nprocess.stderr.write('logged');\nsetTimeout(() => {}, ${LOG_FLUSH_MS * 6});`);
    expect(run.code).toBe(0);
    expect(lines(run)).toMatchObject([{ n: 1, msg: 'one line' }]);
    const first = run.chunks[0]!;
    // Not held until exit: it arrived within the flush period (plus scheduling slack on a loaded machine).
    expect(first.at).toBeLessThan(LOG_FLUSH_MS * 4);
  });

  it('gathers lines logged at a moderate rate into a few write syscalls', async () => {
    // 40 lines 5 ms apart (a request log at 200 req/s). Count the writes to fd 1 made through node:fs
    // (sonic-boom's only way out) inside the child: unbuffered, each line is its own write.
    const run = await runChild(
      `import fs from 'node:fs';\nlet writes = 0;\nfor (const name of ['write', 'writeSync']) { const f = fs[name]; fs[name] = (fd, ...rest) => { if (fd === 1) writes++; return f(fd, ...rest); }; }\n` +
        `let i = 0;\nconst t = setInterval(() => { logger.info({ i }, 'paced'); if (++i === 40) { clearInterval(t); process.stderr.write('logged'); setTimeout(() => process.stderr.write(' writes=' + writes), ${LOG_FLUSH_MS * 3}); } }, 5);`,
    );
    expect(run.code).toBe(0);
    expect(lines(run).map((l) => l.i)).toEqual([...Array(40).keys()]);
    const writes = Number(/writes=(\d+)/.exec(run.stderr)?.[1]);
    // ≥ 200 ms of lines: one write per flush period (or per 4 KiB), not 40.
    expect(writes).toBeGreaterThan(0);
    expect(writes).toBeLessThanOrEqual(8);
  });

  it('writes what is still buffered when the process exits', async () => {
    const run = await runChild(`for (let i = 0; i < 5; i++) logger.info({ i }, 'before exit');\nprocess.exit(0);`);
    expect(run.code).toBe(0);
    expect(lines(run).map((l) => l.i)).toEqual([0, 1, 2, 3, 4]);
  });

  it('writes the buffered lines of a process that dies of an uncaught exception', async () => {
    const run = await runChild(`for (let i = 0; i < 3; i++) logger.info({ i }, 'before the crash');
setImmediate(() => { throw new Error('boom'); });`);
    expect(run.code).not.toBe(0);
    expect(lines(run).map((l) => l.i)).toEqual([0, 1, 2]);
  });

  it('keeps the order of a burst larger than one batch, in batches rather than one write per line', async () => {
    const run = await runChild(
      `import fs from 'node:fs';\nlet writes = 0;\nfor (const name of ['write', 'writeSync']) { const f = fs[name]; fs[name] = (fd, ...rest) => { if (fd === 1) writes++; return f(fd, ...rest); }; }\n` +
        `const pad = 'x'.repeat(400);\nfor (let i = 0; i < 300; i++) logger.info({ i, pad }, i % 50 === 0 ? 'warn-like' : 'burst');\nprocess.stderr.write('logged');\nsetTimeout(() => process.stderr.write(' writes=' + writes), ${LOG_FLUSH_MS * 3});`,
    );
    expect(run.code).toBe(0);
    expect(lines(run).map((l) => l.i)).toEqual([...Array(300).keys()]);
    const writes = Number(/writes=(\d+)/.exec(run.stderr)?.[1]);
    // ~150 KB of lines: about ten 16 KiB batches, not 300 writes.
    expect(writes).toBeGreaterThan(0);
    expect(writes).toBeLessThanOrEqual(20);
  });
});
