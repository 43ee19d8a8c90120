// Everything that can go wrong before a route handler runs, answered in an envelope both SDKs parse:
// Node's HTTP parser (bad methods, NUL bytes, Content-Length with Transfer-Encoding, oversized heads,
// early EOF), fastify's router (malformed URLs), and body parsing (not JSON, too deep, too large).
// Never fastify's default `{"statusCode":…}` body, never a silent reset.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { messagesCodec } from '../codecs/anthropic-messages/index.js';
import { chatCodec } from '../codecs/openai-chat/index.js';
import { responsesCodec } from '../codecs/openai-responses/index.js';
import { geminiErrorCodec } from '../codecs/gemini/index.js';
import type { InboundCodec } from '../codecs/types.js';
import { GatewayError } from '../errors.js';
import { parseJsonBody } from './json-body.js';
import { requestIdFor, sendError } from './reply-helpers.js';

/** The door a request came in by (by path: the route may not be known yet). */
export function codecForPath(request: FastifyRequest): InboundCodec {
  const url = request.url;
  if (url.startsWith('/v1/responses')) return responsesCodec;
  if (url.startsWith('/v1/chat/')) return chatCodec;
  if (isGeminiPath(url)) return geminiErrorCodec;
  return messagesCodec;
}

/** The Gemini door's paths: everything under /v1beta/, and /v1/models/{model}:{method}. */
function isGeminiPath(url: string): boolean {
  if (url.startsWith('/v1beta/')) return true;
  if (!url.startsWith('/v1/models/')) return false;
  const q = url.indexOf('?');
  return (q < 0 ? url : url.slice(0, q)).includes(':', 11);
}

/** Time to receive a whole request (head and body; not the answer, which may stream for long). Past
 * it Node answers 408 through `clientError`: a caller that announces more body than it sends, or
 * trickles its head, cannot hold a connection forever. Node's own default; 32 MiB fit at ~110 kB/s. */
export const REQUEST_RECEIVE_TIMEOUT_MS = 300_000;

/** Options for the Fastify constructor. */
export const frameworkErrorOptions: Pick<FastifyServerOptions, 'clientErrorHandler' | 'frameworkErrors' | 'requestTimeout'> = {
  requestTimeout: REQUEST_RECEIVE_TIMEOUT_MS,
  // Fastify types rawPacket as a JSON-ified buffer; Node hands over the Buffer itself.
  clientErrorHandler: (err, socket) => onClientError(err as unknown as ParserError, socket),
  frameworkErrors(error, request, reply): void {
    sendError(reply, codecForPath(request), fastifyToGatewayError(error), requestIdFor(request));
  },
};

/** The JSON body parser (depth limit, no re-parse), the error handler and the 413 drain.
 * `onInternalError` hears of every failure answered 500 `internal gateway error` (a bug or a broken
 * install, e.g. a missing file): the caller is told nothing more, so the operator's log must be. */
export function installFrameworkErrorHandling(app: FastifyInstance, onInternalError: (error: unknown, request: FastifyRequest) => void): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') drainThenAnswer(request, reply);
    const answer = fastifyToGatewayError(error, request.routeOptions.bodyLimit);
    if (answer.kind === 'api_error') onInternalError(answer.cause ?? error, request);
    sendError(reply, codecForPath(request), answer, requestIdFor(request));
  });
}

/** How much of a refused body we read and discard, and for how long, before giving up on the caller. */
const DRAIN_MAX_BYTES = 256 * 1024 * 1024;
const DRAIN_MAX_MS = 30_000;

/**
 * A refused oversized body: closing the socket while the caller is still uploading makes its kernel
 * see a reset, and most clients then lose the 413 we wrote (one that reads only after its upload gets
 * EPIPE instead). So the connection stays open while Node reads and discards the rest of the body,
 * and is closed only once the body has ended (when the caller asked for `Connection: close`, or spoke
 * HTTP/1.0), or destroyed when the caller keeps sending past a cap. Left to itself, Node ends a
 * `Connection: close` exchange as soon as the answer is written, mid-upload: so the answer is sent
 * without a Connection header and the close is ours, after the body.
 */
function drainThenAnswer(request: FastifyRequest, reply: FastifyReply): void {
  // Fastify's own `connection: close` on this refusal would have Node close mid-upload too.
  reply.removeHeader('connection');
  const raw = request.raw;
  if (raw.complete) return;
  const res = reply.raw;
  const closeAfterBody = !res.shouldKeepAlive;
  if (closeAfterBody) {
    res.shouldKeepAlive = true;
    // No `Connection: keep-alive` either: the caller asked for a close, and gets one after its body.
    res.removeHeader('connection');
  }
  const socket = raw.socket;
  let seen = 0;
  let bodyEnded = false;
  let answered = false;
  const closeWhenDone = (): void => {
    if (closeAfterBody && bodyEnded && answered && !socket.destroyed) socket.end();
  };
  const stop = (): void => {
    clearTimeout(timer);
    raw.off('data', count);
  };
  const count = (chunk: Buffer): void => {
    seen += chunk.length;
    if (seen > DRAIN_MAX_BYTES) {
      stop();
      socket.destroy();
    }
  };
  const timer = setTimeout(() => {
    stop();
    socket.destroy();
  }, DRAIN_MAX_MS);
  timer.unref();
  raw.once('end', () => {
    stop();
    bodyEnded = true;
    closeWhenDone();
  });
  raw.once('close', stop);
  // Node discards the rest of an unread body once the answer is finished (dropping 'data' listeners
  // as it starts), so the byte count is attached after that.
  res.once('finish', () => {
    answered = true;
    if (!raw.complete) raw.on('data', count);
    closeWhenDone();
  });
  raw.resume();
}

/** `bodyLimit`: the route's limit in bytes, named in a 413 so the caller knows how far to shrink. */
export function fastifyToGatewayError(error: FastifyError, bodyLimit?: number): GatewayError {
  if (error instanceof GatewayError) return error;
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new GatewayError('request_too_large', `request body is larger than this gateway accepts${bodyLimit === undefined ? '' : ` (${bodyLimit} bytes)`}`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new GatewayError('invalid_request', 'content-type must be application/json');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new GatewayError('invalid_request', 'request body is empty; expected a JSON object');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new GatewayError('invalid_request', 'content-length does not match the body');
    case 'FST_ERR_BAD_URL':
      return new GatewayError('invalid_request', 'the request path is not a valid URL');
    default:
      break;
  }
  if (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return new GatewayError('invalid_request', `request body is not valid JSON: ${error.message.slice(0, 200)}`);
  }
  const status = error.statusCode ?? 500;
  if (status === 413) return new GatewayError('request_too_large', error.message);
  if (status >= 400 && status < 500) return new GatewayError('invalid_request', error.message);
  return new GatewayError('api_error', 'internal gateway error', { cause: error });
}

// ---------------------------------------------------------------------------------------------
// Node's HTTP parser refused the request: no route, no fastify request, only the socket.

interface ParserError extends Error {
  code?: string;
  rawPacket?: Buffer;
}

const answered = new WeakSet<Socket>();

function onClientError(err: ParserError, socket: Socket): void {
  // A reset or an already-answered socket: nothing to say to anyone (the parser may report twice).
  if (err.code === 'ECONNRESET' || socket.destroyed || answered.has(socket)) return;
  answered.add(socket);
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const { status, code, message } = describeClientError(err);
  // The one envelope both SDKs read: Anthropic's {type:"error", error:{type, message}} with OpenAI's
  // param and code inside `error`.
  const body = JSON.stringify({ type: 'error', error: { type: errorType(status), message, param: null, code } });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

function errorType(status: number): string {
  if (status === 413) return 'request_too_large';
  if (status === 408) return 'timeout_error';
  return 'invalid_request_error';
}

interface ClientErrorAnswer {
  status: number;
  code: string;
  message: string;
}

/** A request line longer than this inside an oversized head is a URI problem (414), not a header one. */
const LONG_REQUEST_LINE = 8192;

function describeClientError(err: ParserError): ClientErrorAnswer {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW': {
      const raw = err.rawPacket;
      const lineEnd = raw === undefined ? -1 : raw.indexOf('\r\n');
      if (raw !== undefined && /^[A-Za-z]+ \//.test(raw.subarray(0, 16).toString('latin1')) && (lineEnd < 0 || lineEnd > LONG_REQUEST_LINE)) {
        return { status: 414, code: 'uri_too_long', message: 'the request path is longer than this gateway accepts' };
      }
      return { status: 431, code: 'headers_too_large', message: 'the request headers are larger than this gateway accepts' };
    }
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return { status: 408, code: 'request_timeout', message: 'the request was not received in time' };
    case 'HPE_INVALID_METHOD':
      return { status: 400, code: 'invalid_method', message: 'the request method is not a valid HTTP method' };
    case 'HPE_INVALID_HEADER_TOKEN':
      return { status: 400, code: 'invalid_header', message: 'a request header has a character HTTP does not allow' };
    case 'HPE_INVALID_TRANSFER_ENCODING':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return { status: 400, code: 'invalid_framing', message: 'Content-Length and Transfer-Encoding cannot both frame a request' };
    case 'HPE_INVALID_CONTENT_LENGTH':
      return { status: 400, code: 'invalid_content_length', message: 'the Content-Length header is not valid' };
    case 'HPE_INVALID_EOF_STATE':
      return { status: 400, code: 'incomplete_body', message: 'the connection ended before the body Content-Length announced' };
    default:
      return { status: 400, code: 'bad_request', message: `the request is not valid HTTP (${(err.code ?? 'parse error').slice(0, 40)})` };
  }
}
