// An upstream that opens a stream and then sends an event that never ends (no blank line): the gateway
// stops reading it at the splitter's and parser's bound (16 MiB), ends the caller's stream with the
// protocol's error event, and closes the upstream request, on both lanes.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/gateway-harness.js';

const START = JSON.stringify({
  type: 'message_start',
  message: { id: 'msg_endless', type: 'message', role: 'assistant', content: [], model: 'endless-1', stop_reason: null, usage: { input_tokens: 3, output_tokens: 1 } },
});
const BLOCK = JSON.stringify({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });

interface Endless {
  url: string;
  /** Bytes written after the unfinished frame began, per request, when its connection closed. */
  closedAfter: number[];
  close(): Promise<void>;
}

/** A Messages upstream whose stream opens properly, then sends one delta that never ends (32 MiB at most). */
async function startEndless(): Promise<Endless> {
  const closedAfter: number[] = [];
  const piece = Buffer.alloc(64 * 1024, 0x78);
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`event: message_start\ndata: ${START}\n\nevent: content_block_start\ndata: ${BLOCK}\n\n`);
      res.write('event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"');
      let sent = 0;
      const more = () => {
        while (sent < 32 * 1024 * 1024 && !res.destroyed) {
          sent += piece.length;
          if (!res.write(piece)) return void res.once('drain', more);
        }
      };
      res.on('close', () => closedAfter.push(sent));
      more();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    closedAfter,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('an upstream event that never ends', () => {
  let endless: Endless;
  let h: Harness;

  beforeAll(async () => {
    endless = await startEndless();
    h = await startHarness({
      config: () => ({
        providers: { endless: { protocol: 'messages', base_url: endless.url, api_key: 'k', retry: { attempts: 1 } } },
        models: { endless: { provider: 'endless', model: 'endless-1' } },
      }),
    });
  });
  afterAll(async () => {
    await h?.close();
    await endless?.close();
  });

  const post = (path: string, body: unknown) =>
    fetch(h.url + path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'caller', authorization: 'Bearer caller' }, body: JSON.stringify(body) });

  it('pass-through (Messages door): the stream ends with an api_error event, the upstream request is closed', async () => {
    const res = await post('/v1/messages', { model: 'endless', max_tokens: 16, stream: true, messages: [{ role: 'user', content: 'Hi' }] });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('event: message_start');
    expect(text).toMatch(/event: error\ndata: \{"type":"error","error":\{"type":"api_error","message":"[^"]*over 16 MiB without ending it/);
    await expect.poll(() => endless.closedAfter.length).toBe(1);
    expect(endless.closedAfter[0]).toBeLessThan(32 * 1024 * 1024);
  });

  it('translation (Responses door): response.failed naming the bound, the upstream request is closed', async () => {
    const res = await post('/v1/responses', { model: 'endless', input: 'Hi', stream: true, store: false });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('event: response.created');
    expect(text).toMatch(/event: response\.failed\ndata: .*over 16 MiB without ending it/);
    await expect.poll(() => endless.closedAfter.length).toBe(2);
    expect(endless.closedAfter[1]).toBeLessThan(32 * 1024 * 1024);
  });
});
