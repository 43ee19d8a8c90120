// pino options for the gateway: the level from config, credentials redacted wherever they could be
// logged as structured fields, and a masker for secrets that end up inside free text (upstream error
// bodies, exception messages). Nothing here logs per stream event: the hot path never calls pino.
import { writeSync } from 'node:fs';
import { destination as pinoDestination, pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';

export const REDACTED = '[redacted]';

/** Structured places a credential can sit. Wildcards cover one level (pino redact semantics). */
export const REDACT_PATHS: readonly string[] = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers["proxy-authorization"]',
  'req.headers.cookie',
  'headers.authorization',
  'headers["x-api-key"]',
  'headers["proxy-authorization"]',
  'headers.cookie',
  '*.headers.authorization',
  '*.headers["x-api-key"]',
  '*.headers["proxy-authorization"]',
  '*.headers.cookie',
  'res.headers["set-cookie"]',
  'authorization',
  'apiKey',
  'api_key',
  'apiKeys',
  '*.authorization',
  '*.apiKey',
  '*.api_key',
  '*.apiKeys',
  '*.authKeys[*].key',
  'authKeys[*].key',
];

/** pino options: `level` is a pino level name (fatal|error|warn|info|debug|trace|silent); `extra`
 * (e.g. a `base` or `transport` chosen by main.ts) is merged last, redaction stays. */
export function loggerOptions(level: string, extra: LoggerOptions = {}): LoggerOptions {
  return {
    ...extra,
    level,
    redact: { paths: [...REDACT_PATHS], censor: REDACTED },
  };
}

/** Longest a log line waits in the stdout buffer before it is written (ms). */
export const LOG_FLUSH_MS = 250;

let stdoutSink: DestinationStream | undefined;

/** Bytes (characters) gathered before a write: at saturation (~2.5 MB/s of request lines) one write per ~6 ms. */
export const LOG_BATCH_BYTES = 16 * 1024;

/**
 * The process's stdout as a buffered log destination: lines are written once LOG_BATCH_BYTES have
 * gathered or LOG_FLUSH_MS after the first of them was logged, whichever comes first, instead of one
 * synchronous `write` syscall per line (a tenth of the CPU per request at 100 req/s). Each async write
 * costs the main thread a hand-off to the thread pool and a completion callback, so fewer, larger
 * writes are cheaper. pino flushes it synchronously when the process exits (graceful shutdown,
 * process.exit, a crash). One per process, shared by every logger.
 */
export function bufferedStdout(): DestinationStream {
  stdoutSink ??= gatherLines(pinoDestination({ dest: 1, sync: false, minLength: 0, maxWrite: 4 * LOG_BATCH_BYTES }), 1);
  return stdoutSink;
}

interface SonicBoomLike extends DestinationStream {
  flush(cb?: (err?: Error) => void): void;
  flushSync(): void;
  end(): void;
  destroy(): void;
}

/**
 * Lines gathered in an array in front of sonic-boom, handed to it joined, one batch at a time.
 * sonic-boom's own buffering measures the byte length of its whole pending buffer (a string it grows
 * by concatenation, flattened by that measurement) on every line: ~5 µs per request line against
 * ~0.7 µs for an array push and one join per batch. Its flush, flushSync, end and destroy (what pino's
 * exit hook calls on this very object) take the gathered lines too, after what it holds: none is lost
 * or reordered.
 */
function gatherLines(sonic: SonicBoomLike, fd: number): DestinationStream {
  const pass = sonic.write.bind(sonic);
  let lines: string[] = [];
  let chars = 0;
  let timer: NodeJS.Timeout | undefined;
  /** The gathered lines as one text (undefined when none), the timer stopped. */
  const take = (): string | undefined => {
    if (timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
    if (lines.length === 0) return undefined;
    const batch = lines.length === 1 ? lines[0]! : lines.join('');
    lines = [];
    chars = 0;
    return batch;
  };
  const handOver = (): void => {
    const batch = take();
    if (batch !== undefined) pass(batch);
  };
  sonic.write = (line: string): boolean => {
    lines.push(line);
    chars += line.length;
    if (chars >= LOG_BATCH_BYTES) handOver();
    else if (timer === undefined) {
      timer = setTimeout(handOver, LOG_FLUSH_MS);
      timer.unref();
    }
    return true;
  };
  for (const name of ['flush', 'end', 'destroy'] as const) {
    const original = sonic[name].bind(sonic) as (...args: unknown[]) => void;
    sonic[name] = (...args: unknown[]) => {
      handOver();
      original(...args);
    };
  }
  // At exit: handed over, the lines would start an async write the process may not live to finish.
  // sonic-boom writes what it holds synchronously, then the gathered lines follow, synchronously too.
  const flushSync = sonic.flushSync.bind(sonic);
  sonic.flushSync = () => {
    flushSync();
    const batch = take();
    if (batch !== undefined) writeAllSync(fd, batch);
  };
  return sonic;
}

/** The whole text to `fd` now, through partial writes and EAGAIN (a non-blocking pipe); dropped when
 * the destination is gone (EPIPE and the like): there is nobody left to tell. */
function writeAllSync(fd: number, text: string): void {
  let buf = Buffer.from(text, 'utf8');
  for (let retries = 0; buf.length > 0; ) {
    try {
      buf = buf.subarray(writeSync(fd, buf));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if ((code !== 'EAGAIN' && code !== 'EBUSY') || ++retries > 100) return;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
  }
}

/** A logger with the gateway's options; `destination` for tests and custom sinks (default: buffered stdout). */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(loggerOptions(level), destination ?? bufferedStdout());
}

/** Shortest secret that is masked inside text: masking 1–3 characters would shred any message. */
export const MIN_SECRET_LENGTH = 4;

// Credentials that look like credentials even when nobody configured them: bearer tokens, and
// sk-… keys (vendors echo a key's prefix and suffix in their "invalid key" errors).
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{4,}/gi;
// "…" too: vendors elide the middle of a key with it ("sk-proj-…abcd").
const SK_KEY = /\bsk-[A-Za-z0-9_*.…-]{4,}/g;

/** Precompile a masker for a fixed set of secrets (config reload builds a new one). */
export function secretMasker(secrets: readonly string[]): (text: string) => string {
  const known = [...new Set(secrets.filter((s) => typeof s === 'string' && s.length >= MIN_SECRET_LENGTH))]
    // Longest first, so a secret that contains another is masked whole.
    .sort((a, b) => b.length - a.length)
    .map(escapeRegExp);
  const knownRe = known.length ? new RegExp(known.join('|'), 'g') : undefined;
  return (text: string) => {
    let out = knownRe ? text.replace(knownRe, REDACTED) : text;
    out = out.replace(BEARER, (_m, scheme: string) => `${scheme} ${REDACTED}`);
    return out.replace(SK_KEY, 'sk-' + REDACTED);
  };
}

/** Mask every known secret value (provider keys, gateway keys) and credential-shaped token in `text`. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  return secretMasker(secrets)(text);
}

/** An error as a plain, log-safe object: messages and stacks masked, causes followed a few levels. */
export function safeErrorObject(err: unknown, mask: (text: string) => string, depth = 0): Record<string, unknown> {
  if (!(err instanceof Error)) {
    return { type: typeof err, message: mask(String(err)) };
  }
  const out: Record<string, unknown> = { type: err.name, message: mask(err.message) };
  const e = err as Error & { kind?: unknown; code?: unknown; upstreamStatus?: unknown; upstreamRequestId?: unknown };
  if (typeof e.kind === 'string') out.kind = e.kind;
  if (typeof e.code === 'string' || typeof e.code === 'number') out.code = e.code;
  if (typeof e.upstreamStatus === 'number') out.upstreamStatus = e.upstreamStatus;
  if (typeof e.upstreamRequestId === 'string') out.upstreamRequestId = e.upstreamRequestId;
  if (err.stack) out.stack = mask(err.stack);
  if (err.cause !== undefined && depth < 3) out.cause = safeErrorObject(err.cause, mask, depth + 1);
  return out;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
