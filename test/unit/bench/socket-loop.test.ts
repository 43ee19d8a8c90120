// The socket bench (bench/socket-overhead.ts) in miniature: its tool loop over a WebSocket and over HTTP
// through the real gateway (in-process) to the bench's fake upstream, with a recorder in between that
// checks what the gateway sent upstream: every turn the whole history so far (the task, each call and
// its output), the same over both transports. Also its idle sockets and its report's arithmetic.
import http from 'node:http';
import pino from 'pino';
import { Pool, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../../../bench/fake-upstream.js';
import { closeServer, listen } from '../../../bench/lib/serve.js';
import { loopOverHttp, loopOverSocket, openIdleHttpConnections, openIdleSockets, TOOL_OUTPUT } from '../../../bench/lib/tool-loop.js';
import { formatReport, perConnection, summariseTurns, type TurnMeasurement } from '../../../bench/socket-overhead.js';
import { TOOL_LOOP_SUFFIX, TOOL_NAME } from '../../../bench/upstream-replies.js';
import { buildApp, type BuiltApp } from '../../../src/app.js';
import { resolveConfig } from '../../../src/config/load-config.js';

interface Seen {
  path: string;
  body: Record<string, unknown>;
}

let upstream: FakeUpstream;
let recorder: http.Server;
let recorderUrl: string;
const seen: Seen[] = [];
let gateway: BuiltApp;
let origin: string;

beforeAll(async () => {
  upstream = await startFakeUpstream({ events: 12 });
  // Records each request the gateway makes, then relays it to the fake upstream and its answer back.
  recorder = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ path: req.url ?? '', body: JSON.parse(body) as Record<string, unknown> });
      const up = await request(upstream.url + (req.url ?? '/'), { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      res.writeHead(up.statusCode, { 'content-type': String(up.headers['content-type']) });
      for await (const c of up.body) res.write(c);
      res.end();
    });
  });
  recorderUrl = (await listen(recorder, '127.0.0.1', 0)).url;
  const config = resolveConfig(
    {
      server: { host: '127.0.0.1', port: 0 },
      log: { level: 'silent' },
      auth: { open: true },
      providers: {
        'up-responses': { protocol: 'responses', base_url: recorderUrl + '/v1', api_key: 'sk-up', retry: { attempts: 1 } },
        'up-messages': { protocol: 'messages', base_url: recorderUrl, api_key: 'sk-up', retry: { attempts: 1 } },
      },
      models: {
        'm-responses': { provider: 'up-responses', model: 'gpt-bench' + TOOL_LOOP_SUFFIX },
        'm-messages': { provider: 'up-messages', model: 'claude-bench' + TOOL_LOOP_SUFFIX },
      },
    },
    'test',
  );
  gateway = buildApp(config, { logger: pino({ level: 'silent' }) });
  await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  gateway.setReady(true);
  const address = gateway.app.server.address();
  origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});

afterAll(async () => {
  await gateway?.app.close();
  if (recorder) await closeServer(recorder);
  await upstream?.close();
});

/** Tool results in the upstream request, in order, whatever its protocol. */
function toolOutputs(s: Seen): unknown[] {
  if (s.path.endsWith('/v1/messages')) {
    const messages = s.body.messages as { content: unknown }[];
    return messages.flatMap((m) => (Array.isArray(m.content) ? (m.content as { type: string; content?: unknown }[]).filter((b) => b.type === 'tool_result') : []));
  }
  return (s.body.input as { type?: string }[]).filter((i) => i.type === 'function_call_output');
}

describe('socket bench: the tool loop', () => {
  for (const [alias, path] of [
    ['m-responses', '/v1/responses'],
    ['m-messages', '/v1/messages'],
  ] as const) {
    it(`${alias}: each turn continues the last with the call's output, over a WebSocket and over HTTP alike`, async () => {
      const turns = 3;
      const pool = new Pool(origin, { connections: 1 });
      const events: Record<string, number> = {};
      try {
        for (const transport of ['websocket', 'http'] as const) {
          seen.length = 0;
          const r = transport === 'websocket' ? await loopOverSocket(origin, alias, turns) : await loopOverHttp(pool, alias, turns);
          expect(r.turns).toBe(turns);
          expect(r.last.callId).toMatch(/^(call_|toolu_01)/);
          // Each turn one streamed upstream call, carrying all earlier tool outputs.
          expect(seen.map((s) => s.path)).toEqual(Array(turns).fill(path));
          seen.forEach((s, i) => {
            expect(s.body.stream).toBe(true);
            const outputs = toolOutputs(s);
            if (path === '/v1/responses') {
              // Pass-through to the Responses deployment that made the previous answer: it keeps its own
              // state, so the gateway forwards previous_response_id and only the new output.
              expect(s.body.previous_response_id ?? null).toEqual(i === 0 ? null : expect.stringMatching(/^resp_/));
              expect(outputs).toHaveLength(i === 0 ? 0 : 1);
            } else {
              // Translated: the gateway sends the whole history, every earlier call and its output.
              expect(outputs).toHaveLength(i);
              expect(JSON.stringify(s.body).split('"name":"' + TOOL_NAME + '"').length - 1).toBe(i + 1);
            }
            for (const o of outputs) expect(JSON.stringify(o)).toContain(JSON.stringify(TOOL_OUTPUT).slice(1, 40));
          });
          if (path === '/v1/messages') expect(JSON.stringify(seen.at(-1)!.body)).toContain('"workdir":"/repo"');
          events[transport] = r.events;
        }
        // The same events on both transports: one text frame per SSE event.
        expect(events.websocket).toBeGreaterThan(turns * 5);
        expect(events.websocket).toBe(events.http);
      } finally {
        await pool.close();
      }
    });
  }

  it('holds idle sockets and keep-alive connections open until closed', async () => {
    const held = await openIdleSockets(origin, 12, 5);
    expect(gateway.ctx.sockets.size).toBe(12);
    await held.closeAll();
    for (let i = 0; i < 50 && gateway.ctx.sockets.size > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(gateway.ctx.sockets.size).toBe(0);
    const kept = await openIdleHttpConnections(origin, 7, 3);
    await kept.closeAll();
  });
});

describe('socket bench: the report', () => {
  const m = (lane: string, transport: 'websocket' | 'http', rep: number, cpu: number, ms: number): TurnMeasurement => ({ lane, transport, rep, turns: 200, msPerTurn: ms, cpuUsPerTurn: cpu, foreignCpuPct: 3 });

  it('takes the socket/HTTP ratio within each repetition, the median over them, and judges it against 1', () => {
    const [lane] = summariseTurns([m('a', 'websocket', 0, 900, 2), m('a', 'http', 0, 1000, 2.5), m('a', 'websocket', 1, 1300, 2), m('a', 'http', 1, 1200, 2), m('a', 'websocket', 2, 950, 1), m('a', 'http', 2, 1000, 2)]);
    expect(lane!.cpuRatio).toBeCloseTo(0.95);
    expect(lane!.cpuRatioRange[0]).toBeCloseTo(0.9);
    expect(lane!.cpuRatioRange[1]).toBeCloseTo(1300 / 1200);
    expect(lane!.websocket.cpuUsPerTurn).toEqual({ min: 900, median: 950 });
    expect(lane!.http.msPerTurn).toEqual({ min: 2, median: 2 });
    expect(lane!.timeRatio).toBeCloseTo(0.8);
    expect(lane!.verdict).toBe('pass');
    expect(summariseTurns([m('a', 'websocket', 0, 1010, 2), m('a', 'http', 0, 1000, 2)])[0]!.verdict).toBe('miss');
  });

  it('reports memory per connection in bytes from the heap after GC, before and after', () => {
    const before = { heapUsedMiB: 20, heapTotalMiB: 30, externalMiB: 3, arrayBuffersMiB: 1, rssMiB: 100, gcMs: 5 };
    const after = { ...before, heapUsedMiB: 30, externalMiB: 3.5, rssMiB: 120 };
    const per = perConnection('websocket', 1000, before, after);
    expect(per.heapBytesPerConnection).toBeCloseTo((10 * 1024 * 1024) / 1000);
    expect(per.rssBytesPerConnection).toBeCloseTo((20 * 1024 * 1024) / 1000);
    const table = formatReport(summariseTurns([m('a', 'websocket', 0, 900, 2), m('a', 'http', 0, 1000, 2)]), [per], 'test');
    expect(table).toContain('| a | WebSocket | 2.00 · 2.00 | 900 · 900 | 0.90× (0.90…0.90) | 1.00× | pass |');
    expect(table).toContain('| WebSocket (upgraded, idle) | 1,000 | 10.2 | 0.5 | 20.5 |');
  });
});
