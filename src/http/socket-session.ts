// One WebSocket connection on a door with a WebSocket mode (docs/websocket.md): client events in, one
// response at a time out. Each `response.create` is a generation like an HTTP request (same admission,
// limits, budgets, spend, metrics, log line and status row) on its own SocketTransport; the connection
// adds only what a socket has: its most recent response for `previous_response_id` (kept with
// `store: false` too), the warm-up (`generate: false`, answered here without any upstream), and its
// lifetime — the connection limit, the idle timeout, ping/pong and the drain's going-away close.
import type { IncomingHttpHeaders } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import type { InboundCodec, SocketCodec } from '../codecs/types.js';
import { GatewayError, toGatewayError } from '../errors.js';
import { emptyUsage, type Warning } from '../ir/types.js';
import type { StoredConversation } from '../responses-store/stored-response.js';
import { inputSystemParts } from '../codecs/openai-responses/decode-request.js';
import { identify } from './auth.js';
import type { AppContext } from './context.js';
import { handleGeneration } from './handle-generation.js';
import { newId } from './ids.js';
import { parseJsonBody } from './json-body.js';
import { continued } from './previous-response.js';
import { SocketSink } from './socket-sink.js';
import { SocketTransport, type TransportConnection } from './socket-transport.js';

/** What the drain does to an open connection (AppContext.sockets). */
export interface OpenSocket {
  goAway(): void;
  /** The keys changed (a reload): a connection whose key no longer opens the door is closed. */
  recheckKey(): void;
  /** Resolves once the connection is closed (its close handshake done, or dropped). */
  readonly closed: Promise<void>;
  terminate(): void;
}

/** Close codes (RFC 6455 §7.4.1). */
const NORMAL = 1000;
const GOING_AWAY = 1001;

/** Why a connection closed (the switchyard_websocket_closes_total label). */
export type CloseReason = 'client' | 'idle' | 'connection_limit' | 'drain' | 'key_refused' | 'protocol_error' | 'too_large' | 'ping_timeout';

/** 1008 policy violation: the key the connection was opened with no longer opens the door. */
const KEY_REFUSED = 1008;

const LIMIT_MESSAGE = 'Responses websocket connection limit reached (60 minutes). Create a new websocket connection to continue.';

export class SocketConnection implements TransportConnection {
  private active: SocketTransport | undefined;
  /** The connection's most recent response: where `previous_response_id` is looked up first. */
  private last: StoredConversation | undefined;
  private closing = false;
  /** Close once the running response has ended (drain, connection limit). */
  private closeAfter: { code: number; reason: string; why: CloseReason; event?: string } | undefined;
  private closeReason: CloseReason = 'client';
  private alive = true;
  private readonly timers: NodeJS.Timeout[] = [];
  private idleTimer: NodeJS.Timeout | undefined;
  private readonly socketCodec: SocketCodec;
  private markClosed!: () => void;
  readonly closed = new Promise<void>((resolve) => (this.markClosed = resolve));
  readonly localPrevious = (id: string): StoredConversation | undefined => (this.last?.id === id ? this.last : undefined);

  constructor(
    private readonly ctx: AppContext,
    private readonly codec: InboundCodec,
    readonly ws: WebSocket,
    /** The upgraded TCP socket (its buffer is the backpressure signal). */
    readonly socket: Duplex,
    /** The upgrade request's headers: the key is checked again from them for every response. */
    readonly headers: IncomingHttpHeaders,
    private readonly registry: Set<OpenSocket>,
  ) {
    this.socketCodec = codec.socket!;
    const ws_ = ctx.config.websocket;
    registry.add(this);
    ctx.obs.socketOpened(codec.protocol);
    ws.on('message', (data, isBinary) => this.onMessage(data as Buffer, isBinary));
    ws.on('pong', () => (this.alive = true));
    // ws reports protocol errors (a frame past maxPayload: 1009; bad framing: 1002) and then closes.
    ws.on('error', (err: Error & { code?: string }) => {
      this.closeReason = err.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH' ? 'too_large' : 'protocol_error';
    });
    ws.on('close', () => this.onClose());
    const limit = setTimeout(() => this.limitReached(), ws_.connectionLimitMs);
    const ping = setInterval(() => {
      // Runtime keys change without a reload (the admin API, another instance): checked on each ping.
      this.recheckKey();
      if (this.closing) return;
      if (!this.alive) {
        this.closeReason = 'ping_timeout';
        ws.terminate();
        return;
      }
      this.alive = false;
      ws.ping();
    }, ws_.pingIntervalMs);
    limit.unref();
    ping.unref();
    this.timers.push(limit, ping);
    this.armIdle();
  }

  /** A text frame to the client (refusals and answers outside a response's stream). */
  send(text: string): void {
    this.ws.send(text);
  }

  /** Close with `code`; `why` is counted. */
  close(code: number, reason: string, why: CloseReason): void {
    if (this.closing) return;
    this.closing = true;
    this.closeReason = why;
    this.ws.close(code, reason);
  }

  /** The drain: close with going-away once the running response has ended (at once when idle). */
  goAway(): void {
    if (this.active) this.closeAfter = { code: GOING_AWAY, reason: 'server shutting down', why: 'drain' };
    else this.close(GOING_AWAY, 'server shutting down', 'drain');
  }

  /**
   * The connection's key, checked again (on a reload and on every ping; every response.create checks it
   * too). Refused — revoked, removed, disabled, expired — the client gets OpenAI's 401 `error` event
   * (`invalid_api_key`) and the connection is closed with 1008: at once when idle, else right after the
   * running response, which was admitted under the key as an HTTP request in flight is. Nothing more is
   * taken on it meanwhile. A key store that cannot answer is no verdict: the next response.create says 503.
   */
  recheckKey(): void {
    if (this.closing || this.closeAfter?.why === 'key_refused') return;
    let refusal: GatewayError | undefined;
    try {
      identify(this.ctx.config, this.headers, undefined, this.ctx.runtimeKeys);
    } catch (err) {
      const gerr = toGatewayError(err);
      if (gerr.kind === 'authentication') refusal = gerr;
    }
    if (!refusal) return;
    const event = this.socketCodec.encodeErrorEvent(refusal).text;
    const reason = 'API key no longer accepted';
    if (this.active) {
      this.closeAfter = { code: KEY_REFUSED, reason, why: 'key_refused', event };
      return;
    }
    this.send(event);
    this.close(KEY_REFUSED, reason, 'key_refused');
  }

  /** The drain's last step: whatever is still open is dropped. */
  terminate(): void {
    this.closeReason = this.closeReason === 'client' ? 'drain' : this.closeReason;
    this.ws.terminate();
  }

  /** A response's answer is complete on the wire (or refused): the next response.create may come. */
  responseEnded(transport: SocketTransport): void {
    if (this.active !== transport) return;
    this.active = undefined;
    // A failed response evicts the cached one; a finished one replaces it (remember, right after).
    this.last = undefined;
    this.armIdle();
    const after = this.closeAfter;
    if (after) {
      // After the response's own last frame, in a later turn: the close frame follows it on the wire.
      setImmediate(() => {
        if (after.event) this.send(after.event);
        this.close(after.code, after.reason, after.why);
      });
    }
  }

  /** The answer just finished (SocketTransport.keepAnswer). */
  remember(conversation: StoredConversation): void {
    this.last = conversation;
  }

  private onMessage(data: Buffer, isBinary: boolean): void {
    this.armIdle();
    if (this.closing || this.closeAfter) return;
    let event;
    try {
      if (isBinary) throw new GatewayError('invalid_request', 'client events are JSON text frames, not binary frames', { code: 'invalid_type' });
      event = this.socketCodec.decodeClientEvent(parseClientJson(data));
    } catch (err) {
      this.refuse(toGatewayError(err));
      return;
    }
    switch (event.type) {
      case 'create':
        if (this.active) {
          this.refuse(
            new GatewayError('invalid_request', 'A response is already in progress on this connection: wait for its terminal event before sending response.create.', {
              code: 'conversation_already_has_active_response',
            }),
          );
          return;
        }
        if (event.generate) this.generate(event.body);
        else this.warmUp(event.body);
        return;
      case 'inject':
        this.send(
          this.socketCodec.encodeInjectFailed(
            event.responseId,
            event.input,
            this.last?.id === event.responseId && !this.active ? 'response_already_completed' : 'response_not_found',
            'This gateway runs no server-side agent that could take injected input: it was not committed. Send it in the next response.create.',
          ),
        );
        return;
      case 'ignored':
        return;
    }
  }

  private generate(body: Record<string, unknown>): void {
    const transport = new SocketTransport(this);
    this.active = transport;
    this.clearIdle();
    const done = handleGeneration(this.ctx, this.codec, {
      transport,
      requestId: newId('req_'),
      // Identified again for every response: a key revoked by a reload stops here.
      caller: undefined,
      body,
      localPrevious: this.localPrevious,
    });
    done.catch((err: unknown) => this.ctx.logger.error({ err: this.ctx.obs.safeError(err) }, 'websocket response failed unexpectedly'));
  }

  /**
   * `generate: false`: the request is validated and its conversation kept on the connection, and the
   * client gets a completed response with no output, as from OpenAI; no upstream is called (Codex sends
   * one before its first turn, possibly before it knows the model).
   */
  private warmUp(body: Record<string, unknown>): void {
    let caller;
    let ir;
    try {
      caller = identify(this.ctx.config, this.headers, undefined, this.ctx.runtimeKeys);
      const warnings: Warning[] = [];
      const model = typeof body.model === 'string' ? body.model : '';
      ir = this.codec.decodeRequest(model === '' ? { ...body, model: 'warm-up' } : body, warnings, this.ctx.config.mediaUrls);
      ir = { ...ir, model };
      if (ir.extras.responses?.previous_response_id) {
        const own = this.localPrevious(String(ir.extras.responses.previous_response_id));
        if (own) ir = continued(ir, own);
      }
    } catch (err) {
      const gerr = toGatewayError(err);
      this.refuse(gerr);
      if (gerr.kind === 'authentication') this.close(KEY_REFUSED, 'API key no longer accepted', 'key_refused');
      return;
    }
    const id = newId(this.codec.responseIdPrefix);
    const createdAt = Math.floor(Date.now() / 1000);
    const sink = new SocketSink(this.ws, this.socket, () => undefined);
    const encoder = this.codec.createStreamEncoder({ request: ir, responseId: id, createdAt, warnings: [] }, (frame) => sink.write(frame));
    encoder.event({ type: 'response-start', id, model: ir.model });
    encoder.event({ type: 'usage', usage: emptyUsage() });
    encoder.event({ type: 'finish', finish: { reason: 'end_turn', raw: null } });
    sink.end();
    // Codex's warm-up carries its base instructions as a developer message: the next turn inherits it.
    this.last = { id, owner: caller.name, createdAt, turns: ir.turns, system: inputSystemParts(ir) };
  }

  /** A client event refused: OpenAI's error event; the connection stays open. */
  private refuse(err: GatewayError): void {
    this.send(this.socketCodec.encodeErrorEvent(err).text);
  }

  private limitReached(): void {
    const event = this.socketCodec.encodeErrorEvent(
      new GatewayError('invalid_request', LIMIT_MESSAGE, { code: 'websocket_connection_limit_reached' }),
    ).text;
    if (this.active) {
      this.closeAfter = { code: NORMAL, reason: 'connection limit reached', why: 'connection_limit', event };
      return;
    }
    this.send(event);
    this.close(NORMAL, 'connection limit reached', 'connection_limit');
  }

  private armIdle(): void {
    this.clearIdle();
    if (this.active) return;
    this.idleTimer = setTimeout(() => this.close(NORMAL, 'idle timeout', 'idle'), this.ctx.config.websocket.idleTimeoutMs);
    this.idleTimer.unref();
  }

  private clearIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }

  private onClose(): void {
    for (const t of this.timers) clearTimeout(t);
    this.clearIdle();
    this.registry.delete(this);
    this.markClosed();
    this.ctx.obs.socketClosed(this.codec.protocol, this.closeReason);
    // The client left mid-response: its upstream call is aborted as an HTTP client abort is.
    this.active?.callerGone();
    this.active = undefined;
    this.last = undefined;
  }
}

/** A client event's JSON (the HTTP body parser's rules: depth limit, no prototype keys). */
function parseClientJson(data: Buffer): unknown {
  try {
    return parseJsonBody(data.toString('utf8'));
  } catch (err) {
    if (err instanceof GatewayError) {
      throw new GatewayError('invalid_request', err.message.replace('request body', 'client event'), { code: err.code ?? 'invalid_json' });
    }
    throw err;
  }
}
