// HttpClient against a real node:http upstream: the answer's status, headers and body; abort before the
// headers (the promise rejects) and during the body (the body errors), the upstream seeing its socket
// close either way; destroying the body early closes the upstream socket; a reader that stops reading
// stops the upstream (backpressure).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { ProviderConfig } from '../../../src/config/types.js';
import { AbortSwitch } from '../../../src/drivers/abort-switch.js';
import { HttpClient, readText } from '../../../src/drivers/http-client.js';
import { GatewayError } from '../../../src/errors.js';

let server: Server | undefined;
let client: HttpClient | undefined;

afterEach(async () => {
  await client?.close();
  client = undefined;
  server?.closeAllConnections();
  if (server) await new Promise<void>((resolve) => server!.close(() => resolve()));
  server = undefined;
});

async function upstream(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<ProviderConfig> {
  server = createServer(handler);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  client = new HttpClient();
  return {
    name: 'up',
    origin,
    basePath: '/v1',
    connections: 1,
    timeouts: { connectMs: 2000, firstByteMs: 5000, idleMs: 5000, totalMs: 10_000 },
  } as unknown as ProviderConfig;
}

function closed(req: IncomingMessage): Promise<void> {
  return new Promise((resolve) => req.socket.once('close', () => resolve()));
}

/** What the upstream saw of a request, once its body is in; `answer` then writes the reply. */
interface Seen {
  method?: string;
  url?: string;
  auth?: string;
  body: string;
}
function onWholeRequest(req: IncomingMessage, answer: (seen: Seen) => void): void {
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => answer({ method: req.method, url: req.url, auth: req.headers['x-api-key'] as string, body }));
}

const within = <T>(p: Promise<T>, ms = 5000): Promise<T> =>
  Promise.race([p, new Promise<T>((_r, reject) => setTimeout(() => reject(new Error(`not within ${ms} ms`)), ms))]);

describe('HttpClient.send', () => {
  it('returns the status, headers and body of the answer, and sends method, path, headers and body', async () => {
    let seen: Seen = { body: '' };
    const provider = await upstream((req, res) =>
      onWholeRequest(req, (s) => {
        seen = s;
        res.writeHead(201, { 'content-type': 'application/json', 'x-request-id': 'req_1' });
        res.end('{"ok":true}');
      }),
    );
    const res = await client!.send(provider, { path: '/messages', headers: { 'x-api-key': 'k', 'content-type': 'application/json' }, body: '{"a":1}', signal: new AbortController().signal });
    expect(res.status).toBe(201);
    expect(res.headers['x-request-id']).toBe('req_1');
    expect(await readText(res.body)).toBe('{"ok":true}');
    expect(seen).toEqual({ method: 'POST', url: '/v1/messages', auth: 'k', body: '{"a":1}' });
  });

  // The lanes pass an AbortSwitch (EventEmitter-style, checked by undici at run time); other callers an AbortSignal.
  const controller = () => {
    const c = new AbortController();
    return { signal: c.signal, abort: () => c.abort() };
  };
  const abortSwitch = () => {
    const s = new AbortSwitch();
    return { signal: s, abort: () => s.abort() };
  };
  const signals = [
    ['AbortController', controller],
    ['AbortSwitch', abortSwitch],
  ] as const;

  it.each(signals)('abort before the headers (%s): the promise rejects as an aborted request and the upstream socket closes', async (_kind, make) => {
    let gone: Promise<void> | undefined;
    let arrived: () => void = () => undefined;
    const reached = new Promise<void>((resolve) => (arrived = resolve));
    const provider = await upstream((req) => {
      gone = closed(req);
      arrived();
    });
    const abort = make();
    const sent = client!.send(provider, { path: '/x', headers: {}, body: '{}', signal: abort.signal });
    await within(reached);
    abort.abort();
    const err = await within(sent.then(() => undefined, (e: unknown) => e));
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as GatewayError).message).toMatch(/aborted/);
    await within(gone!);
  });

  it.each(signals)('abort while the body streams (%s): the body errors and the upstream socket closes', async (_kind, make) => {
    let gone: Promise<void> | undefined;
    const provider = await upstream((req, res) => {
      gone = closed(req);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n');
    });
    const abort = make();
    const res = await client!.send(provider, { path: '/x', headers: {}, body: '{}', signal: abort.signal });
    const failed = new Promise<Error>((resolve) => res.body.once('error', resolve));
    res.body.once('data', () => abort.abort());
    const err = await within(failed);
    expect((err as { name?: string }).name).toBe('AbortError');
    await within(gone!);
  });

  it('an AbortSwitch thrown before the request is sent: rejected at once, nothing reaches the upstream', async () => {
    let requests = 0;
    const provider = await upstream((_req, res) => {
      requests++;
      res.end('{}');
    });
    const abort = new AbortSwitch();
    abort.abort('timeout');
    const err = await within(client!.send(provider, { path: '/x', headers: {}, body: '{}', signal: abort }).then(() => undefined, (e: unknown) => e));
    expect((err as GatewayError).message).toMatch(/aborted/);
    expect(abort.why).toBe('timeout');
    // The same pool still serves the next request.
    const ok = await client!.send(provider, { path: '/x', headers: {}, body: '{}', signal: new AbortSwitch() });
    expect(await readText(ok.body)).toBe('{}');
    expect(requests).toBe(1);
  });

  it('readText: the whole body, in many chunks; past the limit, what came before it and the upstream socket closed', async () => {
    let gone: Promise<void> | undefined;
    const provider = await upstream((req, res) => {
      gone = closed(req);
      res.writeHead(200);
      if (req.url === '/v1/small') {
        res.write('{"a":"é');
        setTimeout(() => res.end('ü"}'), 20);
        return;
      }
      res.write('x'.repeat(1000));
      setTimeout(() => res.write('y'.repeat(1000)), 20);
    });
    const small = await client!.send(provider, { path: '/small', headers: {}, body: '{}', signal: new AbortSwitch() });
    expect(await within(readText(small.body))).toBe('{"a":"éü"}');
    const big = await client!.send(provider, { path: '/big', headers: {}, body: '{}', signal: new AbortSwitch() });
    expect(await within(readText(big.body, 1500))).toBe('x'.repeat(1000));
    await within(gone!);
  });

  it('destroying the body before its end closes the upstream socket (the connection is not reused)', async () => {
    let gone: Promise<void> | undefined;
    const provider = await upstream((req, res) => {
      gone = closed(req);
      res.writeHead(200);
      res.write('a'.repeat(1000));
    });
    const res = await client!.send(provider, { path: '/x', headers: {}, body: '{}', signal: new AbortController().signal });
    await new Promise((resolve) => res.body.once('data', resolve));
    res.body.destroy();
    await within(gone!);
  });

  it('a reader that stops reading stops the upstream: its writes back up until the reader resumes', async () => {
    const chunk = 'z'.repeat(64 * 1024);
    let blockedAfter = -1;
    const provider = await upstream((_req, res) => {
      res.writeHead(200);
      let sent = 0;
      const pump = () => {
        while (sent < 400) {
          sent++;
          if (!res.write(chunk)) {
            if (blockedAfter < 0) blockedAfter = sent;
            res.once('drain', pump);
            return;
          }
        }
        res.end();
      };
      pump();
    });
    const res = await client!.send(provider, { path: '/x', headers: {}, body: '{}', signal: new AbortController().signal });
    res.body.pause();
    await new Promise((r) => setTimeout(r, 300));
    // 400 × 64 KiB = 25 MiB: the upstream is blocked long before it is all sent.
    expect(blockedAfter).toBeGreaterThan(0);
    expect(blockedAfter).toBeLessThan(400);
    let total = 0;
    for await (const c of res.body) total += (c as Buffer).length;
    expect(total).toBe(400 * chunk.length);
  });
});

describe('HttpClient.sendWhole', () => {
  it('the whole answer as text (a character split across chunks) and when its headers came, sending method, path, headers and body; a 2xx keeps no headers', async () => {
    let seen: Seen = { body: '' };
    const provider = await upstream((req, res) =>
      onWholeRequest(req, (s) => {
        seen = s;
        res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req_1' });
        const bytes = Buffer.from('{"a":"éü"}');
        res.write(bytes.subarray(0, 8)); // inside the "é"
        setTimeout(() => res.end(bytes.subarray(8)), 80);
      }),
    );
    const res = await within(client!.sendWhole(provider, { path: '/messages', headers: { 'x-api-key': 'k' }, body: '{"a":1}', signal: new AbortSwitch() }, 1024));
    const ended = performance.now();
    expect(res).toEqual({ status: 200, headersAt: expect.any(Number), headers: {}, text: '{"a":"éü"}' });
    // The time of the headers, not of the end (the upstream time-to-first-byte metric reads it).
    expect(ended - res.headersAt).toBeGreaterThan(50);
    expect(seen).toEqual({ method: 'POST', url: '/v1/messages', auth: 'k', body: '{"a":1}' });
    // The connection is kept and serves the next request.
    const again = await within(client!.sendWhole(provider, { path: '/messages', headers: {}, body: '{}', signal: new AbortSwitch() }, 1024));
    expect(again.text).toBe('{"a":"éü"}');
  });

  it('an answer that is not 2xx: its status, its headers and its body (read up to 256 KiB)', async () => {
    const provider = await upstream((_req, res) => {
      res.writeHead(429, { 'retry-after': '7', 'content-type': 'application/json' });
      res.end('{"error":"slow down"}');
    });
    const res = await within(client!.sendWhole(provider, { path: '/x', headers: {}, body: '{}', signal: new AbortSwitch() }, 1024 * 1024 * 1024));
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBe('7');
    expect(res.text).toBe('{"error":"slow down"}');
  });

  it('an error answer cut short: its status and what came of its body (not a transport error)', async () => {
    const provider = await upstream((_req, res) => {
      res.writeHead(500, { 'content-length': '100' });
      res.write('{"error":');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const res = await within(client!.sendWhole(provider, { path: '/x', headers: {}, body: '{}', signal: new AbortSwitch() }, 1024));
    expect(res).toMatchObject({ status: 500, text: '{"error":' });
  });

  it('a 2xx answer cut short is a transport error', async () => {
    const provider = await upstream((_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('{"a":');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const err = await within(client!.sendWhole(provider, { path: '/x', headers: {}, body: '{}', signal: new AbortSwitch() }, 1024).then(() => undefined, (e: unknown) => e));
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as GatewayError).kind).toBe('bad_gateway');
  });

  it('past the limit: what came before it, and the upstream socket closed', async () => {
    let gone: Promise<void> | undefined;
    const provider = await upstream((req, res) => {
      gone = closed(req);
      res.writeHead(200);
      res.write('x'.repeat(1000));
      setTimeout(() => res.write('y'.repeat(1000)), 20);
    });
    const res = await within(client!.sendWhole(provider, { path: '/x', headers: {}, body: '{}', signal: new AbortSwitch() }, 1500));
    expect(res.text).toBe('x'.repeat(1000));
    await within(gone!);
  });

  it('aborted before the answer: rejected as an aborted request, the upstream socket closed; the pool serves the next one', async () => {
    let gone: Promise<void> | undefined;
    let arrived: () => void = () => undefined;
    const reached = new Promise<void>((resolve) => (arrived = resolve));
    let requests = 0;
    const provider = await upstream((req, res) => {
      requests++;
      if (requests > 1) {
        res.end('{}');
        return;
      }
      gone = closed(req);
      res.writeHead(200);
      res.write('{"partial":');
      arrived();
    });
    const abort = new AbortSwitch();
    const sent = client!.sendWhole(provider, { path: '/x', headers: {}, body: '{}', signal: abort }, 1024);
    await within(reached);
    abort.abort('client');
    const err = await within(sent.then(() => undefined, (e: unknown) => e));
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as GatewayError).message).toMatch(/aborted/);
    await within(gone!);
    const next = await within(client!.sendWhole(provider, { path: '/x', headers: {}, body: '{}', signal: new AbortSwitch() }, 1024));
    expect(next.text).toBe('{}');
  });

  it('an AbortSwitch thrown before the request is sent: rejected at once, nothing reaches the upstream', async () => {
    let requests = 0;
    const provider = await upstream((_req, res) => {
      requests++;
      res.end('{}');
    });
    const abort = new AbortSwitch();
    abort.abort('timeout');
    const err = await within(client!.sendWhole(provider, { path: '/x', headers: {}, body: '{}', signal: abort }, 1024).then(() => undefined, (e: unknown) => e));
    expect((err as GatewayError).message).toMatch(/aborted/);
    expect(requests).toBe(0);
  });
});
