// A scripted Amazon Bedrock runtime (Anthropic models) on a loopback port: InvokeModel,
// InvokeModelWithResponseStream and CountTokens on /model/{modelId}/…, every request's SigV4 signature
// verified as received (sigv4-verify.ts) or its Bedrock API key checked, Bedrock's body rules enforced
// (anthropic_version required, no `model`, no `stream`), answers in Bedrock's shapes: the Messages JSON
// for invoke, AWS event-stream `chunk` events and exception messages for streams (event-stream.ts),
// `x-amzn-errortype` errors. It takes the same scripted replies as the first-party scripted upstream
// (whose Messages renderer writes the events), and records what it received the same way, so the
// conformance scenarios run against it unchanged. Independent of src/ on purpose.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { agentLoopReply } from '../scripted-upstream/agent-loop.js';
import { readBody } from '../scripted-upstream/http-body.js';
import { messagesRenderer } from '../scripted-upstream/messages.js';
import type { OkReply, ReceivedRequest, Reply, ReplyBlock, ScriptedUpstream } from '../scripted-upstream/types.js';
import { estimateInputTokens, resolveUsage } from '../scripted-upstream/usage.js';
import { chunkMessage, exceptionMessage, sseData } from './event-stream.js';
import { verifySigV4, type IssuedCredential } from './sigv4-verify.js';

export type BedrockOperation = 'invoke' | 'invoke-with-response-stream' | 'count-tokens';

export interface BedrockReceived extends ReceivedRequest {
  /** The model id from the path, percent-decoded. */
  modelId: string;
  operation: BedrockOperation;
  auth: 'sigv4' | 'api-key';
  accessKeyId?: string;
  /** When it arrived (ms since the epoch). */
  at: number;
  /** The body text exactly as received. */
  rawBody: string;
  /** CountTokens: the decoded invoke body. */
  invokeBody?: Record<string, unknown>;
}

/** Bedrock-only replies on top of the shared ones. */
export type BedrockReply =
  | Reply
  /** Streamed: the blocks' events, then an exception message (`throttlingException` …), then close. */
  | { kind: 'stream-exception'; blocks: ReplyBlock[]; exception: string; message: string };

export interface BedrockUpstream extends Omit<ScriptedUpstream, 'received' | 'enqueue'> {
  received: BedrockReceived[];
  enqueue(...replies: BedrockReply[]): void;
  /** Requests refused before a model saw them (bad signature, unknown key …), with the reason. */
  refused: { path: string; type: string }[];
  /** Adds or replaces a credential the fake accepts. */
  issue(accessKeyId: string, credential: IssuedCredential): void;
}

export interface BedrockUpstreamOptions {
  region?: string;
  /** Access key id → credential. */
  credentials?: Record<string, IssuedCredential>;
  /** Credentials not issued up front (e.g. by a credential_process), looked up on demand. */
  lookup?: (accessKeyId: string) => IssuedCredential | undefined;
  /** Bedrock API keys accepted as `Authorization: Bearer`. */
  apiKeys?: string[];
  /** Which models CountTokens serves (default: all but inference profiles, as on Bedrock). */
  countsTokens?: (modelId: string) => boolean;
  defaultReply?: (req: ReceivedRequest) => Reply;
}

const ERROR_TYPE_SUFFIX = ':http://internal.amazon.com/coral/com.amazon.bedrock/';

const TYPE_BY_STATUS: Record<number, string> = {
  400: 'ValidationException',
  403: 'AccessDeniedException',
  404: 'ResourceNotFoundException',
  408: 'ModelTimeoutException',
  424: 'ModelErrorException',
  429: 'ThrottlingException',
  500: 'InternalServerException',
  503: 'ServiceUnavailableException',
};

const MAX_WAIT_MS = 120_000;

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

function write(res: ServerResponse, data: Uint8Array | string): Promise<boolean> {
  if (res.destroyed || res.writableEnded) return Promise.resolve(false);
  return new Promise((resolve) => res.write(data, (err) => resolve(!err)));
}

function requestId(): string {
  return randomUUID();
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'x-amzn-requestid': requestId(), ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Bedrock's error answer: the type in `x-amzn-errortype`, `{"message"}` in the body. */
export function sendBedrockError(res: ServerResponse, status: number, type: string, message: string, extra: Record<string, string> = {}): void {
  sendJson(res, status, { message }, { 'x-amzn-errortype': type + ERROR_TYPE_SUFFIX, ...extra });
}

/** `/model/{id}/{operation}`, the id percent-encoded (ARNs and `:` included). */
function routeOf(method: string, path: string): { modelId: string; operation: BedrockOperation } | undefined {
  const m = /^\/model\/([^/]+)\/(invoke|invoke-with-response-stream|count-tokens)$/.exec(path);
  if (method !== 'POST' || !m) return undefined;
  return { modelId: decodeURIComponent(m[1]!), operation: m[2] as BedrockOperation };
}

/** What Bedrock checks of an Anthropic invoke body before the model sees it; a message on refusal. */
function invalidBody(body: Record<string, unknown>): string | undefined {
  const version = body.anthropic_version;
  if (typeof version !== 'string' || version === '') return 'Malformed input request: #: required key [anthropic_version] not found, please reformat your input and try again.';
  for (const key of ['model', 'stream']) {
    if (key in body) return `Malformed input request: #: extraneous key [${key}] is not permitted, please reformat your input and try again.`;
  }
  if (typeof body.max_tokens !== 'number') return 'Malformed input request: #: required key [max_tokens] not found, please reformat your input and try again.';
  if (!Array.isArray(body.messages)) return 'Malformed input request: #: required key [messages] not found, please reformat your input and try again.';
  const beta = body.anthropic_beta;
  if (beta !== undefined && (!Array.isArray(beta) || beta.some((b) => typeof b !== 'string'))) {
    return 'Malformed input request: #/anthropic_beta: expected type: JSONArray, please reformat your input and try again.';
  }
  return undefined;
}

/** Inference profiles (`us.`, `eu.`, `global.` …, or an ARN) are not served by CountTokens. */
const defaultCountsTokens = (modelId: string) => /^anthropic\./.test(modelId);

export async function startBedrockUpstream(opts: BedrockUpstreamOptions = {}): Promise<BedrockUpstream> {
  const region = opts.region ?? 'us-east-1';
  const credentials = new Map(Object.entries(opts.credentials ?? {}));
  const apiKeys = new Set(opts.apiKeys ?? []);
  const countsTokens = opts.countsTokens ?? defaultCountsTokens;
  const received: BedrockReceived[] = [];
  const refused: { path: string; type: string }[] = [];
  const queue: BedrockReply[] = [];
  let defaultReply: (req: ReceivedRequest) => Reply = opts.defaultReply ?? ((req) => agentLoopReply(req));
  const closing = new AbortController();
  let inFlight = 0;
  let maxInFlight = 0;
  let aborted = 0;

  const lookup = (id: string) => credentials.get(id) ?? opts.lookup?.(id);

  /** Event-stream messages, written in uneven pieces: some cut inside their prelude, some two at once,
   * so a client must reassemble messages across reads. */
  async function writeMessages(res: ServerResponse, messages: Uint8Array[]): Promise<boolean> {
    for (let i = 0; i < messages.length; i++) {
      const m = messages[i]!;
      if (i % 3 === 1) {
        const cut = Math.min(3, m.length - 1);
        if (!(await write(res, m.subarray(0, cut)))) return false;
        if (!(await write(res, m.subarray(cut)))) return false;
      } else if (i % 3 === 2 && i + 1 < messages.length) {
        if (!(await write(res, Buffer.concat([m, messages[++i]!])))) return false;
      } else if (!(await write(res, m))) return false;
    }
    return true;
  }

  /** Messages SSE frames (the shared renderer's) → chunk events; message_stop gets Bedrock's metrics. */
  function chunks(frames: string[], usage: { input: number; output: number }): Uint8Array[] {
    return frames.map((frame) => {
      let data = sseData(frame);
      if (data === '{"type":"message_stop"}') {
        const metrics = { inputTokenCount: usage.input, outputTokenCount: usage.output, invocationLatency: 412, firstByteLatency: 187 };
        data = JSON.stringify({ type: 'message_stop', 'amazon-bedrock-invocationMetrics': metrics });
      }
      return chunkMessage(data);
    });
  }

  async function play(reply: BedrockReply, rec: BedrockReceived, res: ServerResponse, signal: AbortSignal): Promise<void> {
    // The shared renderer reads the model from the body; Bedrock answers with the model of the path.
    const renderRec: ReceivedRequest = { ...rec, body: { ...(rec.body as object), model: rec.modelId } };
    const streamHeaders = {
      'content-type': 'application/vnd.amazon.eventstream',
      'x-amzn-bedrock-content-type': 'application/json',
      'x-amzn-requestid': requestId(),
    };
    switch (reply.kind) {
      case 'delay-headers':
        if (await wait(reply.ms, signal)) await play(reply.then, rec, res, signal);
        return;
      case 'reset-before-headers':
        res.socket?.destroy();
        return;
      case 'http-error': {
        const type = reply.type && /Exception$/.test(reply.type) ? reply.type : (TYPE_BY_STATUS[reply.status] ?? 'InternalServerException');
        const extra: Record<string, string> = reply.retryAfter !== undefined ? { 'retry-after': reply.retryAfter } : {};
        return sendBedrockError(res, reply.status, type, reply.message ?? type, extra);
      }
      case 'reply': {
        const usage = resolveUsage(reply, renderRec);
        if (!rec.stream) {
          return sendJson(res, 200, messagesRenderer.json(reply, renderRec), {
            'x-amzn-bedrock-input-token-count': String(usage.input),
            'x-amzn-bedrock-output-token-count': String(usage.output),
            'x-amzn-bedrock-invocation-latency': '412',
          });
        }
        res.writeHead(200, streamHeaders);
        const script = messagesRenderer.stream(reply, renderRec);
        if (await writeMessages(res, chunks(script.opening, usage))) await writeMessages(res, chunks(script.finish(), usage));
        res.end();
        return;
      }
      case 'fail-mid-stream':
      case 'stream-exception': {
        const exception = reply.kind === 'stream-exception' ? reply.exception : 'modelStreamErrorException';
        const message = reply.message ?? 'Upstream failed while generating';
        if (!rec.stream) {
          const type = exception.charAt(0).toUpperCase() + exception.slice(1);
          return sendBedrockError(res, type === 'ThrottlingException' ? 429 : 500, type, message);
        }
        res.writeHead(200, streamHeaders);
        const ok: OkReply = { kind: 'reply', blocks: reply.blocks };
        const script = messagesRenderer.stream(ok, renderRec);
        if (await writeMessages(res, chunks(script.opening, resolveUsage(ok, renderRec)))) await write(res, exceptionMessage(exception, message));
        res.end();
        return;
      }
      case 'reset-mid-stream': {
        if (rec.stream) {
          res.writeHead(200, streamHeaders);
          const ok: OkReply = { kind: 'reply', blocks: reply.blocks };
          await writeMessages(res, chunks(messagesRenderer.stream(ok, renderRec).opening, resolveUsage(ok, renderRec)));
        } else {
          const text = JSON.stringify(messagesRenderer.json({ kind: 'reply', blocks: reply.blocks }, renderRec));
          res.writeHead(200, { 'content-type': 'application/json' });
          await write(res, text.slice(0, Math.floor(text.length / 2)));
        }
        res.socket?.destroy();
        return;
      }
      case 'stall': {
        const ok: OkReply = { kind: 'reply', blocks: reply.afterBlocks };
        const usage = resolveUsage(ok, renderRec);
        if (!rec.stream) {
          res.writeHead(200, { 'content-type': 'application/json', 'x-amzn-requestid': requestId() });
          res.flushHeaders();
          if (await wait(reply.ms, signal)) res.end(JSON.stringify(messagesRenderer.json(ok, renderRec)));
          return;
        }
        res.writeHead(200, streamHeaders);
        const script = messagesRenderer.stream(ok, renderRec);
        if ((await writeMessages(res, chunks(script.opening, usage))) && (await wait(reply.ms, signal))) await writeMessages(res, chunks(script.finish(), usage));
        res.end();
        return;
      }
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    const path = url.split('?')[0]!;
    const method = req.method ?? 'GET';
    const raw = await readBody(req);
    const route = routeOf(method, path);
    if (!route) return sendJson(res, 404, { message: `Unable to determine service/operation name to be authorized` }, { 'x-amzn-errortype': 'UnknownOperationException' });

    // Authentication first, as AWS does: nothing reaches the model unauthenticated.
    let auth: BedrockReceived['auth'];
    let accessKeyId: string | undefined;
    const authorization = req.headers.authorization ?? '';
    if (authorization.startsWith('Bearer ')) {
      if (!apiKeys.has(authorization.slice(7))) {
        refused.push({ path, type: 'UnrecognizedClientException' });
        return sendBedrockError(res, 403, 'UnrecognizedClientException', 'Invalid API Key format: Must start with pre-defined prefix');
      }
      auth = 'api-key';
    } else {
      const verdict = verifySigV4({ method, url, headers: req.headers, body: raw }, lookup, { region, service: 'bedrock' });
      if (!('accessKeyId' in verdict)) {
        refused.push({ path, type: verdict.type });
        return sendBedrockError(res, verdict.status, verdict.type, verdict.message);
      }
      auth = 'sigv4';
      accessKeyId = verdict.accessKeyId;
    }

    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      return sendBedrockError(res, 400, 'ValidationException', 'Malformed input request, please reformat your input and try again.');
    }
    const rec: BedrockReceived = {
      protocol: 'messages',
      method,
      path,
      url,
      headers: req.headers,
      body,
      stream: route.operation === 'invoke-with-response-stream',
      at: Date.now(),
      rawBody: raw.toString('utf8'),
      modelId: route.modelId,
      operation: route.operation,
      auth,
      accessKeyId,
    };
    received.push(rec);
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      return sendBedrockError(res, 400, 'ValidationException', 'Malformed input request, please reformat your input and try again.');
    }

    if (route.operation === 'count-tokens') {
      const encoded = (body as { input?: { invokeModel?: { body?: unknown } } }).input?.invokeModel?.body;
      if (typeof encoded !== 'string') return sendBedrockError(res, 400, 'ValidationException', '1 validation error detected: Value null at \'input\' failed to satisfy constraint: Member must not be null');
      let invoke: Record<string, unknown>;
      try {
        invoke = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8')) as Record<string, unknown>;
      } catch {
        return sendBedrockError(res, 400, 'ValidationException', 'The provided request is not valid');
      }
      rec.invokeBody = invoke;
      if (!countsTokens(route.modelId)) return sendBedrockError(res, 400, 'ValidationException', "The provided model doesn't support counting tokens.");
      const problem = invalidBody(invoke);
      if (problem) return sendBedrockError(res, 400, 'ValidationException', problem);
      return sendJson(res, 200, { inputTokens: estimateInputTokens(invoke) });
    }

    const problem = invalidBody(body as Record<string, unknown>);
    if (problem) return sendBedrockError(res, 400, 'ValidationException', problem);

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
      if (!res.headersSent) sendBedrockError(res, 500, 'InternalServerException', `scripted bedrock: ${String(err)}`);
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
    refused,
    enqueue: (...replies) => void queue.push(...replies),
    setDefault: (fn) => void (defaultReply = fn),
    issue: (id, credential) => void credentials.set(id, credential),
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
        closing.abort();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
