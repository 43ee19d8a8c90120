// CARD-FLOOR: the least a pass-through gateway built on the design card's blocks can do, as a control
// for the targets set against FLOOR (streams, CPU per request, latency at a low rate). fastify with its JSON body parser reads the caller's body, the model alias is
// mapped, the body re-serialised and sent through an undici Pool; the answer goes back as the upstream's
// bytes (a stream chunk by chunk with backpressure, a JSON answer whole), never parsed. No auth, no
// validation, no metrics, no log line, no usage: everything a real gateway adds is left out, so the
// gateway can only be slower. Pass-through lanes only (messages→messages, responses→responses).
//
// It reads the gateway's own YAML config, so `bench/ab-gateway.ts` can run it as a build:
//
//   node --import tsx bench/ab-gateway.ts --a bench/card-floor-proxy.ts '--node-flags-a=--import tsx' \
//     --b dist/main.js --lane messages-messages --stream
//
// `--bare` runs FLOOR (bench/floor-proxy.ts) on the same config instead: the byte relay it is measured
// against, in the same interleaved run.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import Fastify from 'fastify';
import { Pool } from 'undici';
import { parse } from 'yaml';
import { parseFlags } from './cli-flags.js';
import { startFloorProxy } from './floor-proxy.js';

export interface CardFloorConfig {
  server: { host: string; port: number };
  providers: Record<string, { protocol: string; base_url: string; api_key: string; connections?: number }>;
  models: Record<string, { provider: string; model: string }>;
}

export interface CardFloorProxy {
  url: string;
  close(): Promise<void>;
}

export async function startCardFloorProxy(config: CardFloorConfig): Promise<CardFloorProxy> {
  const pools = new Map<string, Pool>();
  const pool = (origin: string, connections = 128) => {
    let p = pools.get(origin);
    if (!p) pools.set(origin, (p = new Pool(origin, { connections, pipelining: 1, keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000 })));
    return p;
  };
  const app = Fastify({ logger: false, bodyLimit: 32 * 1024 * 1024 });
  app.get('/healthz', async () => ({ ok: true }));
  const route = (path: string, protocol: string) =>
    app.post(path, async (request, reply) => {
      const body = request.body as { model: string; stream?: boolean };
      const entry = config.models[body.model];
      const provider = entry && config.providers[entry.provider];
      if (!provider || provider.protocol !== protocol) return reply.code(404).send({ error: `no pass-through model ${body.model}` });
      body.model = entry.model;
      const base = new URL(provider.base_url);
      const headers: Record<string, string> =
        protocol === 'messages'
          ? { 'content-type': 'application/json', 'x-api-key': provider.api_key, 'anthropic-version': '2023-06-01' }
          : { 'content-type': 'application/json', authorization: `Bearer ${provider.api_key}` };
      const upstreamPath = base.pathname.replace(/\/$/, '') + (protocol === 'messages' ? '/v1/messages' : '/responses');
      const res = await pool(base.origin, provider.connections).request({ method: 'POST', path: upstreamPath, headers, body: JSON.stringify(body) });
      if (!body.stream) {
        const text = await res.body.text();
        return reply.code(res.statusCode).header('content-type', 'application/json').send(text);
      }
      reply.hijack();
      const raw = reply.raw;
      raw.writeHead(res.statusCode, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.body.on('data', (chunk: Buffer) => {
        if (!raw.write(chunk)) {
          res.body.pause();
          raw.once('drain', () => res.body.resume());
        }
      });
      res.body.on('end', () => raw.end());
      res.body.on('error', () => raw.destroy());
      raw.on('close', () => res.body.destroy());
    });
  route('/v1/messages', 'messages');
  route('/v1/responses', 'responses');
  const url = await app.listen({ host: config.server.host, port: config.server.port, backlog: 4096 });
  return {
    url,
    close: async () => {
      await app.close();
      await Promise.all([...pools.values()].map((p) => p.close()));
    },
  };
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2));
  const config = parse(readFileSync(flags.get('config') ?? '', 'utf8')) as CardFloorConfig;
  const anyProvider = Object.values(config.providers)[0]!;
  const proxy = flags.has('bare')
    ? await startFloorProxy({ host: config.server.host, port: config.server.port, upstream: new URL(anyProvider.base_url).origin, connections: anyProvider.connections })
    : await startCardFloorProxy(config);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => void proxy.close().then(() => process.exit(0)));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) void main();
