// A fake Amazon Bedrock runtime for benchmarks: `/model/{id}/invoke` answers the fake upstream's
// precomputed Messages body, `/model/{id}/invoke-with-response-stream` the same events as AWS
// event-stream `chunk` messages (encoded once per model with AWS's codec, one write per message). It
// checks only that a request is SigV4-signed (or carries a Bearer key) and is in Bedrock's shape, cheaply:
// the signature itself is verified by test/support/bedrock/, not here, so this server stays off the
// critical path of a measurement.
//
//   node --import tsx bench/fake-bedrock.ts --port 0 --events 50
import http from 'node:http';
import { pathToFileURL } from 'node:url';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { parseFlags } from './cli-flags.js';
import { announceReady, closeServer, listen } from './lib/serve.js';
import { prepareReply, stampId } from './upstream-replies.js';

const ROUTE = /^\/model\/([^/]+)\/(invoke|invoke-with-response-stream)$/;

const codec = new EventStreamCodec(
  (b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8'),
  (s) => Buffer.from(s, 'utf8'),
);

function chunk(eventJson: string): Buffer {
  const body = Buffer.from(JSON.stringify({ bytes: Buffer.from(eventJson, 'utf8').toString('base64'), p: 'abcdefghij' }), 'utf8');
  const str = (value: string) => ({ type: 'string' as const, value });
  return Buffer.from(codec.encode({ headers: { ':event-type': str('chunk'), ':content-type': str('application/json'), ':message-type': str('event') }, body }));
}

export async function startFakeBedrock(options: { port?: number; events?: number } = {}): Promise<{ url: string; port: number; close(): Promise<void> }> {
  const events = options.events ?? 50;
  const streams = new Map<string, Buffer[]>();
  const streamOf = (model: string): Buffer[] => {
    let frames = streams.get(model);
    if (!frames) {
      const sse = stampId(prepareReply('messages', model, true, events), 'bedrockbedrockbedrock000');
      frames = sse.map((b) => chunk(b.toString('utf8').split('\n')[1]!.slice('data: '.length)));
      streams.set(model, frames);
    }
    return frames;
  };
  let counter = 0;
  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    if (req.method === 'GET' && url === '/healthz') return void res.end('{"status":"ok"}');
    const m = req.method === 'POST' ? ROUTE.exec(url) : null;
    const auth = req.headers.authorization ?? '';
    if (!m || !(auth.startsWith('AWS4-HMAC-SHA256 Credential=') || auth.startsWith('Bearer '))) {
      req.resume();
      res.writeHead(403, { 'content-type': 'application/json', 'x-amzn-errortype': 'MissingAuthenticationTokenException' });
      return void res.end('{"message":"Missing Authentication Token"}');
    }
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const body = Buffer.concat(parts).toString('latin1');
      if (!body.startsWith('{"anthropic_version":') || body.includes('"model":')) {
        res.writeHead(400, { 'content-type': 'application/json', 'x-amzn-errortype': 'ValidationException' });
        return void res.end('{"message":"Malformed input request"}');
      }
      const model = decodeURIComponent(m[1]!);
      if (m[2] === 'invoke') {
        const reply = prepareReply('messages', model, false, events);
        res.writeHead(200, reply.headers);
        return void res.end(stampId(reply, (counter++).toString(36).padStart(24, '0'))[0]);
      }
      res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': String(counter++) });
      const frames = streamOf(model);
      for (let i = 0; i < frames.length - 1; i++) res.write(frames[i]);
      res.end(frames[frames.length - 1]);
    });
  });
  server.maxRequestsPerSocket = 0;
  const { url, port } = await listen(server, '127.0.0.1', options.port ?? 0);
  return { url, port, close: () => closeServer(server) };
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2));
  const fake = await startFakeBedrock({ port: Number(flags.get('port') ?? 0), events: Number(flags.get('events') ?? 50) });
  announceReady('fake-bedrock', fake.port, () => fake.close());
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) void main();
