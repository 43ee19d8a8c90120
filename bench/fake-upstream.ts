// A fake model provider for benchmarks: one node:http server answering the four upstream protocols
// (Anthropic `/v1/messages`, OpenAI Responses `/v1/responses` and `/responses`, Chat Completions
// `/v1/chat/completions` and `/chat/completions`, Gemini `/v1beta/models/{m}:generateContent` and
// `:streamGenerateContent`) with realistic, complete bodies and event streams. A streamed request for a
// model named `…-tool-loop` (Messages, Responses) is answered with a tool call: one turn of an agent loop.
// Everything is precomputed (see upstream-replies.ts): per request it only drains the body, looks for
// `"stream": true` and the model name without parsing JSON, stamps a unique id and writes bytes, so it is
// never the bottleneck of a benchmark.
//
//   node --import tsx bench/fake-upstream.ts --port 0 --events 50 --pace-ms 0
//
// prints one JSON line `{"ready":true,"port":N,...}` on stdout when listening.
import http from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { parseFlags } from './cli-flags.js';
import { announceReady, closeServer, listen } from './lib/serve.js';
import type { Protocol } from './request-bodies.js';
import { ID_WIDTH, pacingTick, prepareReply, prepareToolCallReply, stampId, TOOL_LOOP_SUFFIX, type PreparedReply } from './upstream-replies.js';

export interface FakeUpstreamOptions {
  host?: string;
  /** 0 = ephemeral. */
  port?: number;
  /** SSE events per streamed answer (default 50). */
  events?: number;
  /** Delay between streamed deltas in ms (0 = write every event back to back); the framing events go
   * with the first and the last delta, as a vendor sends them (upstream-replies.ts `pacingTick`). */
  paceMs?: number;
}

export interface FakeUpstreamStats {
  requests: number;
  streams: number;
  activeStreams: number;
  maxActiveStreams: number;
  aborted: number;
  notFound: number;
  /** Paced streams: how late events left compared with their schedule (ms), since the last reset. */
  pacingLateMax: number;
  pacingLateOver10ms: number;
  pacingEvents: number;
  /** This process's event-loop delay since the last reset (ms). */
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
}

export interface FakeUpstream {
  url: string;
  port: number;
  stats: FakeUpstreamStats;
  close(): Promise<void>;
}

const ROUTES: Record<string, Protocol> = {
  '/v1/messages': 'messages',
  '/v1/responses': 'responses',
  '/responses': 'responses',
  '/v1/chat/completions': 'chat',
  '/chat/completions': 'chat',
};

/** Gemini: model and mode in the path. */
const GEMINI_RE = /^\/v1beta\/models\/([^/:]{1,200}):(generateContent|streamGenerateContent)$/;

const STREAM_RE = /"stream"\s*:\s*true/;
const MODEL_RE = /"model"\s*:\s*"([^"\\]{1,200})"/;
const MAX_CACHED = 256;

export async function startFakeUpstream(options: FakeUpstreamOptions = {}): Promise<FakeUpstream> {
  const events = options.events ?? 50;
  const paceMs = options.paceMs ?? 0;
  const cache = new Map<string, PreparedReply>();
  const stats: FakeUpstreamStats = { requests: 0, streams: 0, activeStreams: 0, maxActiveStreams: 0, aborted: 0, notFound: 0, pacingLateMax: 0, pacingLateOver10ms: 0, pacingEvents: 0, loopDelayP99Ms: 0, loopDelayMaxMs: 0 };
  const loopDelay = monitorEventLoopDelay({ resolution: 5 });
  loopDelay.enable();
  // Unique, fixed-width ids: a per-process prefix and a counter.
  const prefix = (process.pid.toString(36) + Math.random().toString(36).slice(2)).slice(0, 8).padEnd(8, '0');
  let counter = 0;
  const nextId = () => prefix + (counter++).toString(36).padStart(ID_WIDTH - prefix.length, '0');

  const replyFor = (protocol: Protocol, model: string, stream: boolean): PreparedReply => {
    const key = protocol + (stream ? '|s|' : '|j|') + model;
    let reply = cache.get(key);
    if (!reply) {
      const toolCall = stream && model.endsWith(TOOL_LOOP_SUFFIX) ? prepareToolCallReply(protocol, model) : undefined;
      reply = toolCall ?? prepareReply(protocol, model, stream, events);
      if (cache.size < MAX_CACHED) cache.set(key, reply);
    }
    return reply;
  };

  const answer = (protocol: Protocol, body: string, res: http.ServerResponse, gemini: RegExpExecArray | null) => {
    const stream = gemini ? gemini[2] === 'streamGenerateContent' : STREAM_RE.test(body);
    const model = gemini ? gemini[1]! : (MODEL_RE.exec(body)?.[1] ?? 'unknown-model');
    const reply = replyFor(protocol, model, stream);
    const chunks = stampId(reply, nextId());
    res.writeHead(200, reply.headers);
    if (!stream) {
      res.end(chunks[0]);
      return;
    }
    stats.streams++;
    stats.activeStreams++;
    if (stats.activeStreams > stats.maxActiveStreams) stats.maxActiveStreams = stats.activeStreams;
    let done = false;
    const end = () => {
      if (done) return;
      done = true;
      stats.activeStreams--;
    };
    if (paceMs <= 0) {
      // Each event its own write (its own chunk on the wire), as a provider flushing per event.
      for (let i = 0; i < chunks.length - 1; i++) res.write(chunks[i]);
      res.end(chunks[chunks.length - 1]);
      end();
      return;
    }
    // Paced as a vendor streams (pacingTick): the opening events at once, one delta every paceMs on a
    // drift-free schedule, the closing events with the last delta. Each event is its own write.
    const start = performance.now();
    const n = chunks.length;
    let i = 0;
    let timer: NodeJS.Timeout | undefined;
    const tick = () => {
      if (done) return;
      const t = pacingTick(reply, n, i);
      const late = performance.now() - (start + t * paceMs);
      stats.pacingEvents++;
      if (late > stats.pacingLateMax) stats.pacingLateMax = late;
      if (late > 10) stats.pacingLateOver10ms++;
      for (; i < n - 1 && pacingTick(reply, n, i) === t; i++) res.write(chunks[i]);
      if (i === n - 1 && pacingTick(reply, n, i) === t) {
        res.end(chunks[i]);
        end();
        return;
      }
      timer = setTimeout(tick, Math.max(0, start + pacingTick(reply, n, i) * paceMs - performance.now()));
    };
    res.on('close', () => {
      if (!done) {
        stats.aborted++;
        if (timer) clearTimeout(timer);
        end();
      }
    });
    tick();
  };

  const server = http.createServer((req, res) => {
    stats.requests++;
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    if (req.method === 'GET' && (path === '/healthz' || path === '/')) {
      res.writeHead(200, ['content-type', 'application/json', 'content-length', '15']);
      res.end('{"status":"ok"}');
      return;
    }
    if (req.method === 'GET' && path === '/_stats') {
      // `?reset=1`: start a new peak-concurrency window.
      if (q !== -1 && url.includes('reset')) {
        stats.maxActiveStreams = stats.activeStreams;
        stats.pacingLateMax = 0;
        stats.pacingLateOver10ms = 0;
        stats.pacingEvents = 0;
        loopDelay.reset();
      }
      stats.loopDelayP99Ms = loopDelay.percentile(99) / 1e6;
      stats.loopDelayMaxMs = loopDelay.max / 1e6;
      const text = JSON.stringify(stats);
      res.writeHead(200, ['content-type', 'application/json', 'content-length', String(Buffer.byteLength(text))]);
      res.end(text);
      return;
    }
    const gemini = req.method === 'POST' ? GEMINI_RE.exec(path) : null;
    const protocol = req.method === 'POST' ? (gemini ? 'gemini' : ROUTES[path]) : undefined;
    if (!protocol) {
      stats.notFound++;
      req.resume();
      const text = JSON.stringify({ error: { type: 'not_found_error', message: `fake upstream: no route ${req.method} ${path}` } });
      res.writeHead(404, ['content-type', 'application/json', 'content-length', String(Buffer.byteLength(text))]);
      res.end(text);
      return;
    }
    // Drain the body; usually it arrives in one chunk.
    let first: Buffer | undefined;
    let rest: Buffer[] | undefined;
    req.on('data', (chunk: Buffer) => {
      if (!first) first = chunk;
      else (rest ??= [first]).push(chunk);
    });
    req.on('end', () => {
      const buf = rest ? Buffer.concat(rest) : first;
      answer(protocol, buf ? buf.toString('latin1') : '', res, gemini);
    });
  });
  server.maxRequestsPerSocket = 0;
  const { url, port } = await listen(server, options.host ?? '127.0.0.1', options.port ?? 0);
  return {
    url,
    port,
    stats,
    close: () => {
      loopDelay.disable();
      return closeServer(server);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Command line

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2));
  const upstream = await startFakeUpstream({
    host: flags.get('host') ?? '127.0.0.1',
    port: Number(flags.get('port') ?? 0),
    events: Number(flags.get('events') ?? 50),
    paceMs: Number(flags.get('pace-ms') ?? 0),
  });
  announceReady('fake-upstream', upstream.port, () => upstream.close());
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) void main();
