// The only file that imports undici: one keep-alive Pool per upstream origin, timeouts mapped onto
// undici's (connect, headers = first byte, body = idle gap), abort plumbing, and transport failures
// turned into GatewayErrors.
import { Pool, errors as undiciErrors, util as undiciUtil, type Dispatcher } from 'undici';
import type { Readable } from 'node:stream';
import { GatewayError } from '../errors.js';
import type { ProviderConfig } from '../config/types.js';
import type { AbortSwitch } from './abort-switch.js';

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Readable;
}

/** A whole (non-streamed) answer: its status, headers and text. */
export interface WholeResponse {
  status: number;
  /** When its headers came (performance.now()): the upstream's time to first byte. */
  headersAt: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export interface SendOptions {
  method?: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** An AbortSwitch on the hot path (undici accepts either). */
  signal: AbortSignal | AbortSwitch;
}

export class HttpClient {
  private readonly pools = new Map<string, Pool>();

  private pool(provider: ProviderConfig): Pool {
    const key = poolKey(provider);
    let pool = this.pools.get(key);
    if (!pool) {
      pool = new Pool(provider.origin, {
        connections: provider.connections,
        pipelining: 1,
        keepAliveTimeout: 30_000,
        keepAliveMaxTimeout: 600_000,
        connect: { timeout: provider.timeouts.connectMs },
        headersTimeout: provider.timeouts.firstByteMs,
        bodyTimeout: provider.timeouts.idleMs,
      });
      this.pools.set(key, pool);
    }
    return pool;
  }

  async send(provider: ProviderConfig, options: SendOptions): Promise<UpstreamResponse> {
    try {
      const res = await this.pool(provider).request({
        method: options.method ?? 'POST',
        path: provider.basePath + options.path,
        headers: options.headers,
        body: options.body === undefined ? undefined : utf8Bytes(options.body),
        // undici checks the shape at run time (an EventEmitter-style object or an EventTarget).
        signal: options.signal as AbortSignal,
      });
      return { status: res.statusCode, headers: res.headers, body: res.body };
    } catch (err) {
      throw transportError(err, provider.name);
    }
  }

  /**
   * A request whose answer is read whole (a non-streamed answer): the bytes are gathered in undici's own
   * callbacks and the promise settles once, with the text, when the answer has ended. No body stream: the
   * `request()` path makes a Readable per answer, and reading it back costs a few listener and next-tick
   * turns, on the path between the upstream's last byte and the caller's reply (≈ 40 µs at 100 requests/s
   * on the bench machine: bench/profiles.md, "latency at a low rate"). Past `limit` bytes (a 2xx answer) or
   * 256 KiB (an error's body) the request is aborted and what came before is the text, as readText does.
   * The headers are parsed only for an answer that is not 2xx (its error decoding reads them).
   */
  sendWhole(provider: ProviderConfig, options: SendOptions & { signal: AbortSwitch }, limit: number): Promise<WholeResponse> {
    return new Promise((resolve, reject) => {
      const signal = options.signal;
      const chunks: Buffer[] = [];
      let size = 0;
      let status = 0;
      let headersAt = 0;
      let headers: WholeResponse['headers'] = NO_HEADERS;
      let cap = limit;
      let abortRequest: ((err: Error) => void) | undefined;
      let settled = false;
      const onAbort = () => abortRequest?.(new undiciErrors.RequestAbortedError());
      const settle = (err: Error | undefined) => {
        if (settled) return;
        settled = true;
        signal.removeListener('abort', onAbort);
        if (err !== undefined) reject(transportError(err, provider.name));
        else resolve({ status, headersAt, headers, text: chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, size).toString('utf8') });
      };
      const handler: Dispatcher.DispatchHandler = {
        onConnect(abort) {
          if (signal.aborted) abort(new undiciErrors.RequestAbortedError());
          else abortRequest = abort;
        },
        onHeaders(statusCode, rawHeaders) {
          // An informational answer (1xx) is not the answer.
          if (statusCode < 200) return true;
          status = statusCode;
          headersAt = performance.now();
          if (statusCode >= 300) {
            headers = undiciUtil.parseHeaders(rawHeaders) as WholeResponse['headers'];
            cap = Math.min(limit, 256 * 1024);
          }
          return true;
        },
        onData(chunk) {
          if (size + chunk.length > cap) {
            // What came before the limit is the answer; the connection is not reused.
            settle(undefined);
            abortRequest?.(new undiciErrors.RequestAbortedError());
            return false;
          }
          size += chunk.length;
          chunks.push(chunk);
          return true;
        },
        onComplete() {
          settle(undefined);
        },
        onError(err) {
          // An error's body cut short: its status alone will do (as when the body is read from a stream).
          settle(status >= 300 ? undefined : err);
        },
      };
      if (signal.aborted) {
        settle(new undiciErrors.RequestAbortedError());
        return;
      }
      signal.once('abort', onAbort);
      this.pool(provider).dispatch(
        {
          method: options.method ?? 'POST',
          path: provider.basePath + options.path,
          headers: options.headers,
          body: options.body === undefined ? undefined : utf8Bytes(options.body),
        },
        handler,
      );
    });
  }

  /**
   * After a reload: close the pools no provider of the new configuration uses (an origin or timeout
   * profile that changed), so reloads do not accumulate idle sockets. undici's close() lets requests
   * still running on them finish; a request of the old table that starts later gets a fresh pool.
   */
  retain(providers: Iterable<ProviderConfig>): void {
    const keep = new Set<string>();
    for (const p of providers) keep.add(poolKey(p));
    for (const [key, pool] of this.pools) {
      if (keep.has(key)) continue;
      this.pools.delete(key);
      pool.close().catch(() => pool.destroy());
    }
  }

  /** Open pools (for tests and diagnostics). */
  get poolCount(): number {
    return this.pools.size;
  }

  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((p) => p.close().catch(() => p.destroy())));
    this.pools.clear();
  }
}

/**
 * The body as UTF-8 bytes, encoded here rather than by undici: undici keeps what it is given for the
 * whole life of the request (its handler holds it) and, given a string, also its own bytes of it, so a
 * stream open for minutes held its request twice (~3 KiB of heap per open stream with the bench's
 * request, beside the bytes). Given bytes, it sends them as they are. An own ArrayBuffer, not a slice
 * of Buffer's shared pool: that 8 KiB slab would stay alive with the stream.
 */
function utf8Bytes(text: string): Buffer {
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  bytes.write(text, 'utf8');
  return bytes;
}

const NO_HEADERS: WholeResponse['headers'] = Object.freeze({});

/** One pool per origin and timeout profile: providers on the same origin share connections. */
function poolKey(provider: ProviderConfig): string {
  return provider.origin + '|' + provider.connections + '|' + provider.timeouts.connectMs + '|' + provider.timeouts.firstByteMs + '|' + provider.timeouts.idleMs;
}

/** undici / socket failure → GatewayError. Messages never include URLs' credentials or headers. */
export function transportError(err: unknown, provider: string): GatewayError {
  if (err instanceof GatewayError) return err;
  const e = err as { code?: string; name?: string; message?: string };
  if (err instanceof undiciErrors.HeadersTimeoutError || e.code === 'UND_ERR_HEADERS_TIMEOUT') {
    return new GatewayError('timeout', `upstream ${provider} did not answer in time`, { cause: err });
  }
  if (err instanceof undiciErrors.BodyTimeoutError || e.code === 'UND_ERR_BODY_TIMEOUT') {
    return new GatewayError('timeout', `upstream ${provider} stalled`, { cause: err });
  }
  if (err instanceof undiciErrors.ConnectTimeoutError || e.code === 'UND_ERR_CONNECT_TIMEOUT') {
    return new GatewayError('bad_gateway', `upstream ${provider} unreachable (connect timeout)`, { cause: err });
  }
  if (e.name === 'AbortError' || e.code === 'UND_ERR_ABORTED') {
    return new GatewayError('timeout', `upstream ${provider} request aborted`, { cause: err });
  }
  return new GatewayError('bad_gateway', `upstream ${provider} unreachable (${e.code ?? 'connection error'})`, { cause: err });
}

/** Read a whole (small) body as text, bounded so a misbehaving upstream cannot exhaust memory (past
 * the limit the body is destroyed and what came before it is returned). Plain listeners: an async
 * iterator costs a few promises per answer. */
export function readText(body: Readable, limit = 4 * 1024 * 1024): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const text = () => (chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, size).toString('utf8'));
    const onData = (chunk: Buffer) => {
      if (size + chunk.length > limit) {
        body.off('data', onData);
        resolve(text());
        // The error listener stays: a late error after this settles nothing (and crashes nothing).
        body.destroy();
        return;
      }
      size += chunk.length;
      chunks.push(chunk);
    };
    body.on('data', onData);
    body.on('end', () => resolve(text()));
    body.on('error', reject);
  });
}
