// The HTTP side: routing, recording, the reply queue, and the timing/failure modes around each protocol's renderer.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { agentLoopReply } from './agent-loop.js';
import { chatRenderer } from './chat.js';
import { createGeminiRenderer, geminiError } from './gemini.js';
import { readBody, parseBody } from './http-body.js';
import { anthropicError, messagesRenderer, verifyThinking } from './messages.js';
import { openaiError } from './openai-errors.js';
import type { ProtocolRenderer } from './protocol.js';
import { responsesRenderer } from './responses.js';
import type { Protocol, ReceivedRequest, Reply, ScriptedUpstream, ScriptedUpstreamOptions } from './types.js';
import { estimateInputTokens } from './usage.js';

/** Upper bound for scripted waits, so a mistaken script cannot hang a test run. */
const MAX_WAIT_MS = 120_000;

type Route =
  | { kind: 'generate'; protocol: Protocol; stream?: boolean }
  | { kind: 'count-tokens'; protocol: 'messages' | 'responses' | 'gemini' }
  | { kind: 'models'; id?: string }
  | { kind: 'not-found' };

/** Gemini API (`/v1beta/models/{m}:method`) and Vertex AI (`/v1/projects/…/publishers/google/models/{m}:method`). */
const GEMINI_PATH = /^(?:\/v1beta|\/v1|\/v1\/projects\/[^/]+\/locations\/[^/]+\/publishers\/google)?\/models\/[^/:]+:(generateContent|streamGenerateContent|countTokens)$/;

function route(method: string, path: string): Route {
  if (method === 'POST') {
    const gemini = GEMINI_PATH.exec(path);
    if (gemini) {
      return gemini[1] === 'countTokens' ? { kind: 'count-tokens', protocol: 'gemini' } : { kind: 'generate', protocol: 'gemini', stream: gemini[1] === 'streamGenerateContent' };
    }
    if (path === '/v1/messages') return { kind: 'generate', protocol: 'messages' };
    if (path === '/v1/messages/count_tokens') return { kind: 'count-tokens', protocol: 'messages' };
    if (path === '/v1/responses' || path === '/responses') return { kind: 'generate', protocol: 'responses' };
    if (path === '/v1/responses/input_tokens' || path === '/responses/input_tokens') return { kind: 'count-tokens', protocol: 'responses' };
    if (path === '/v1/chat/completions' || path === '/chat/completions') return { kind: 'generate', protocol: 'chat' };
  } else if (method === 'GET') {
    const model = /^(?:\/v1)?\/models(?:\/([^/]+))?$/.exec(path);
    if (model) return { kind: 'models', id: model[1] ? decodeURIComponent(model[1]) : undefined };
  }
  return { kind: 'not-found' };
}

/** Which family a request that is not a generation belongs to, for recording and error shapes. */
function familyOf(req: IncomingMessage, path: string): Protocol {
  if (req.headers['x-goog-api-key'] || path.includes('/models/') && path.includes(':')) return 'gemini';
  if (path.startsWith('/v1/messages') || req.headers['anthropic-version'] || req.headers['x-api-key']) return 'messages';
  return /chat/.test(path) ? 'chat' : 'responses';
}

/** Cancellable waits: aborted when the client goes away or the server closes. */
function wait(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, Math.max(0, Math.min(ms, MAX_WAIT_MS)));
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Write one frame and wait until it is handed to the socket, so frames leave as separate chunks. */
function write(res: ServerResponse, data: string): Promise<boolean> {
  if (res.destroyed || res.writableEnded) return Promise.resolve(false);
  return new Promise((resolve) => res.write(data, (err) => resolve(!err)));
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string>): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function modelList(protocol: Protocol, models: string[], id: string | undefined): { status: number; body: unknown } {
  const anthropic = protocol === 'messages';
  const entry = (m: string) =>
    anthropic
      ? { type: 'model', id: m, display_name: m, created_at: '2025-01-01T00:00:00Z' }
      : { id: m, object: 'model', created: 1735689600, owned_by: 'switchyard-scripted' };
  if (id !== undefined) {
    if (models.includes(id)) return { status: 200, body: entry(id) };
    const message = `model: ${id}`;
    return { status: 404, body: anthropic ? anthropicError({ status: 404, message }) : openaiError({ status: 404, message }) };
  }
  const data = models.map(entry);
  return {
    status: 200,
    body: anthropic ? { data, has_more: false, first_id: models[0] ?? null, last_id: models[models.length - 1] ?? null } : { object: 'list', data },
  };
}

export async function startScriptedUpstream(opts: ScriptedUpstreamOptions = {}): Promise<ScriptedUpstream> {
  const received: ReceivedRequest[] = [];
  const queue: Reply[] = [];
  let defaultReply: (req: ReceivedRequest) => Reply = opts.defaultReply ?? ((req) => agentLoopReply(req));
  // Gemini's renderer remembers the thought signatures it issued, so it is one per server.
  const gemini = createGeminiRenderer();
  const RENDERERS: Record<Protocol, ProtocolRenderer> = { messages: messagesRenderer, responses: responsesRenderer, chat: chatRenderer, gemini };
  const models = opts.models ?? ['scripted-model'];
  /** Messages thinking signatures (and redacted data) handed out, → the text they cover (verifyThinking). */
  const thinkingIssued = new Map<string, string>();
  const closing = new AbortController();
  // Generation requests being answered now, and the most at once (concurrency limits are checked on it).
  let inFlight = 0;
  let maxInFlight = 0;
  let aborted = 0;

  /** Plays one scripted reply for a generation request. */
  async function play(reply: Reply, rec: ReceivedRequest, res: ServerResponse, signal: AbortSignal): Promise<void> {
    const renderer = RENDERERS[rec.protocol];
    const headers = renderer.headers();
    const streamHeaders = { ...headers, 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' };
    const writeAll = async (frames: string[]) => {
      for (const frame of frames) if (!(await write(res, frame))) return false;
      return true;
    };

    switch (reply.kind) {
      case 'delay-headers':
        if (await wait(reply.ms, signal)) await play(reply.then, rec, res, signal);
        return;
      case 'reset-before-headers':
        res.socket?.destroy();
        return;
      case 'http-error': {
        // Gemini says when to retry inside the body (RetryInfo), never in a header.
        const extra: Record<string, string> = reply.retryAfter !== undefined && rec.protocol !== 'gemini' ? { 'retry-after': reply.retryAfter } : {};
        sendJson(res, reply.status, renderer.error(reply), { ...headers, ...extra });
        return;
      }
      case 'reply':
        if (rec.protocol === 'messages') for (const b of reply.blocks) if (b.type === 'reasoning' && b.opaque !== undefined) thinkingIssued.set(b.opaque, b.text);
        if (!rec.stream) return sendJson(res, 200, renderer.json(reply, rec), headers);
        res.writeHead(200, streamHeaders);
        {
          const script = renderer.stream(reply, rec);
          if (await writeAll(script.opening)) await writeAll(script.finish());
        }
        res.end();
        return;
      case 'fail-mid-stream': {
        const message = reply.message ?? 'Upstream failed while generating';
        if (!rec.stream) return sendJson(res, 500, renderer.error({ status: 500, message }), headers);
        res.writeHead(200, streamHeaders);
        const script = renderer.stream({ kind: 'reply', blocks: reply.blocks }, rec);
        if (await writeAll(script.opening)) await writeAll(script.fail(message));
        res.end();
        return;
      }
      case 'reset-mid-stream': {
        if (rec.stream) {
          res.writeHead(200, streamHeaders);
          await writeAll(renderer.stream({ kind: 'reply', blocks: reply.blocks }, rec).opening);
        } else {
          const text = JSON.stringify(renderer.json({ kind: 'reply', blocks: reply.blocks }, rec));
          res.writeHead(200, { ...headers, 'content-type': 'application/json' }); // no length: chunked, cut short
          await write(res, text.slice(0, Math.floor(text.length / 2)));
        }
        res.socket?.destroy();
        return;
      }
      case 'stall': {
        const ok = { kind: 'reply' as const, blocks: reply.afterBlocks };
        if (!rec.stream) {
          res.writeHead(200, { ...headers, 'content-type': 'application/json' });
          res.flushHeaders();
          if (await wait(reply.ms, signal)) res.end(JSON.stringify(renderer.json(ok, rec)));
          return;
        }
        res.writeHead(200, streamHeaders);
        const script = renderer.stream(ok, rec);
        if ((await writeAll(script.opening)) && (await wait(reply.ms, signal))) await writeAll(script.finish());
        res.end();
        return;
      }
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    const path = url.split('?')[0]!.replace(/\/+$/, '') || '/';
    const method = req.method ?? 'GET';
    const target = route(method, path);
    const { body, valid } = parseBody(await readBody(req));
    const protocol = target.kind === 'generate' || target.kind === 'count-tokens' ? target.protocol : familyOf(req, path);
    const bodyObject = valid && typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : undefined;
    const stream = target.kind === 'generate' && target.stream !== undefined ? target.stream : bodyObject?.stream === true;
    const rec: ReceivedRequest = { protocol, method, path, url, headers: req.headers, body, stream };
    received.push(rec); // recorded before any reply, including failures

    const renderer = RENDERERS[protocol];
    if (target.kind === 'not-found') {
      const message = `Unknown route: ${method} ${path}`;
      const notFound = protocol === 'messages' ? anthropicError({ status: 404, message }) : protocol === 'gemini' ? geminiError({ status: 404, message }) : openaiError({ status: 404, message, code: 'not_found' });
      return sendJson(res, 404, notFound, renderer.headers());
    }
    if (target.kind === 'models') {
      const { status, body: list } = modelList(protocol, models, target.id);
      return sendJson(res, status, list, renderer.headers());
    }
    if (!bodyObject) return sendJson(res, 400, renderer.error({ status: 400, message: 'The request body is not a JSON object.' }), renderer.headers());
    if (protocol === 'gemini') {
      // The Gemini API wants its key (x-goog-api-key or ?key=); Vertex AI a bearer token.
      if (!req.headers['x-goog-api-key'] && !/[?&]key=/.test(url) && !req.headers.authorization) {
        return sendJson(res, 403, geminiError({ status: 403, message: "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API." }), renderer.headers());
      }
      // countTokens: the Gemini API wraps the request in generateContentRequest; Vertex AI refuses that.
      if (target.kind === 'count-tokens' && path.includes('/publishers/google/') && 'generateContentRequest' in bodyObject) {
        return sendJson(res, 400, geminiError({ status: 400, message: 'Invalid JSON payload received. Unknown name "generateContentRequest": Cannot find field.' }), renderer.headers());
      }
      const body = target.kind === 'count-tokens' ? (bodyObject.generateContentRequest ?? bodyObject) : bodyObject;
      const refusal = gemini.verify(body as Record<string, unknown>, /\/models\/([^/:]+):/.exec(path)?.[1] ?? '');
      if (refusal) return sendJson(res, refusal.status, refusal.body, renderer.headers());
      if (target.kind === 'count-tokens') return sendJson(res, 200, { totalTokens: estimateInputTokens(body), promptTokensDetails: [{ modality: 'TEXT', tokenCount: estimateInputTokens(body) }] }, renderer.headers());
    }
    if (opts.verifyThinking && protocol === 'messages' && target.kind === 'generate') {
      const refused = verifyThinking(bodyObject as Record<string, unknown>, thinkingIssued);
      if (refused) return sendJson(res, 400, anthropicError({ status: 400, type: 'invalid_request_error', message: refused }), renderer.headers());
    }
    if (target.kind === 'count-tokens') {
      const input_tokens = estimateInputTokens(body);
      const answer = protocol === 'messages' ? { input_tokens } : { object: 'response.input_tokens', input_tokens };
      return sendJson(res, 200, answer, renderer.headers());
    }

    const reply = queue.shift() ?? defaultReply(rec);
    const exchange = new AbortController();
    const abort = () => exchange.abort();
    res.on('close', abort);
    // The gateway hung up before the reply was complete (a client abort it passed on).
    res.on('close', () => {
      if (!res.writableFinished) aborted++;
    });
    closing.signal.addEventListener('abort', abort, { once: true });
    inFlight++;
    if (inFlight > maxInFlight) maxInFlight = inFlight;
    try {
      await play(reply, rec, res, exchange.signal);
    } finally {
      inFlight--;
      closing.signal.removeEventListener('abort', abort);
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      // A bug in a script or renderer: say so loudly rather than hang the client.
      if (!res.headersSent) sendJson(res, 500, { error: { message: `scripted upstream: ${String(err)}`, type: 'server_error', param: null, code: null } }, {});
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    received,
    enqueue: (...replies) => void queue.push(...replies),
    setDefault: (fn) => void (defaultReply = fn),
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    resetMaxInFlight: () => void (maxInFlight = inFlight),
    get aborted() {
      return aborted;
    },
    close: () =>
      new Promise<void>((resolve) => {
        closing.abort(); // wake stalls and delays so their responses can finish or be dropped
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
