// Helpers for the router end-to-end tests: provider/model config builders over the scripted upstream,
// a TCP proxy that shows when the gateway closes an upstream socket, and a listener that never
// completes a TCP handshake (connect timeouts) — all on 127.0.0.1.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { startHarness, type Harness } from '../../support/gateway-harness.js';
import type { ReceivedRequest } from '../../support/scripted-upstream/index.js';

export type Proto = 'messages' | 'responses' | 'chat';

/** Small, fast defaults: no retries unless a test asks, millisecond backoffs. */
export function provider(protocol: Proto, upstreamUrl: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    protocol,
    base_url: protocol === 'messages' ? upstreamUrl : upstreamUrl + '/v1',
    ...('api_keys' in extra ? {} : { api_key: `key-${protocol}` }),
    retry: { attempts: 1, backoff_ms: 5, max_backoff_ms: 20 },
    ...extra,
  };
}

/** A harness whose whole providers/models sections come from the test. */
export function routerHarness(
  build: (upstreamUrl: string) => { providers: Record<string, unknown>; models: Record<string, unknown>; [k: string]: unknown },
): Promise<Harness> {
  return startHarness({ config: (url) => build(url) });
}

/** Generation requests only (no count_tokens / models). */
export function generations(h: Harness): ReceivedRequest[] {
  return h.upstream.received.filter((r) => /\/(messages|responses|chat\/completions)$/.test(r.path));
}

export async function waitFor(cond: () => boolean, ms = 3000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`${what} not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export const user = (text: string) => ({ role: 'user' as const, content: text });

// ---------------------------------------------------------------------------------------------

export interface TcpProxy {
  url: string;
  /** Where connections go (an http URL; set it before the first connection). */
  target: string;
  /** Connections accepted / closed so far. */
  opened: number;
  closed: number;
  close(): Promise<void>;
}

/** Forwards every connection to `target` and counts the connections opened and closed. */
export async function startTcpProxy(): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const state = { opened: 0, closed: 0, target: '' };
  const server = net.createServer((client) => {
    state.opened++;
    sockets.add(client);
    const upstream = net.connect(Number(new URL(state.target).port), '127.0.0.1');
    sockets.add(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    const done = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', () => {
      state.closed++;
      sockets.delete(client);
      done();
    });
    upstream.on('close', () => {
      sockets.delete(upstream);
      done();
    });
    client.on('error', done);
    upstream.on('error', done);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get target() {
      return state.target;
    },
    set target(url: string) {
      state.target = url;
    },
    get opened() {
      return state.opened;
    },
    get closed() {
      return state.closed;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

// ---------------------------------------------------------------------------------------------

export interface Blackhole {
  url: string;
  close(): void;
}

/**
 * A port whose TCP handshake never completes: a child process listens with a backlog of 1 and never
 * accepts (its event loop is blocked), and two held connections fill the accept queue, so the kernel
 * drops further SYNs and a client's connect hangs until its own timeout.
 */
export async function startBlackhole(): Promise<Blackhole> {
  const script = `
    const net = require('net'), fs = require('fs');
    const s = net.createServer();
    s.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => {
      fs.writeSync(1, s.address().port + '\\n');
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60000);
      process.exit(0);
    });`;
  const child: ChildProcess = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'ignore'] });
  const port = await new Promise<number>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('blackhole did not start')), 5000);
    child.stdout!.once('data', (d) => {
      clearTimeout(t);
      resolve(Number(String(d).trim()));
    });
  });
  const held: net.Socket[] = [];
  for (let i = 0; i < 2; i++) {
    await new Promise<void>((resolve, reject) => {
      const s = net.connect(port, '127.0.0.1', () => resolve());
      s.once('error', reject);
      held.push(s);
    });
  }
  return {
    url: `http://127.0.0.1:${port}`,
    close() {
      for (const s of held) s.destroy();
      child.kill('SIGKILL');
    },
  };
}
