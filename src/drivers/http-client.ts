// The only file that imports undici: one keep-alive Pool per upstream origin, timeouts mapped onto
// undici's (connect, headers = first byte, body = idle gap), abort plumbing, and transport failures
// turned into GatewayErrors.
import { Pool, errors as undiciErrors } from 'undici';
import type { Readable } from 'node:stream';
import { GatewayError } from '../errors.js';
import type { ProviderConfig } from '../config/types.js';

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Readable;
}

export interface SendOptions {
  method?: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
}

export class HttpClient {
  private readonly pools = new Map<string, Pool>();

  private pool(provider: ProviderConfig): Pool {
    // One pool per origin and timeout profile: providers on the same origin share connections.
    const key = provider.origin + '|' + provider.timeouts.connectMs + '|' + provider.timeouts.firstByteMs + '|' + provider.timeouts.idleMs;
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
        body: options.body,
        signal: options.signal,
      });
      return { status: res.statusCode, headers: res.headers, body: res.body };
    } catch (err) {
      throw transportError(err, provider.name);
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((p) => p.close().catch(() => p.destroy())));
    this.pools.clear();
  }
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

/** Read a whole (small) body as text, bounded so a misbehaving upstream cannot exhaust memory. */
export async function readText(body: Readable, limit = 4 * 1024 * 1024): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > limit) {
      body.destroy();
      break;
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}
