// One response on a WebSocket connection, as a generation's transport: its events go out as text frames
// (socket-sink.ts); a failure before its stream opened is the door's `error` event, and the connection
// stays open (OpenAI keeps it open for a refused request); a finished answer is kept on the connection
// (its most recent response, `store: false` too) and, unless `store: false`, in the store.
import type { IncomingHttpHeaders } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import type { InboundCodec } from '../codecs/types.js';
import type { GatewayError } from '../errors.js';
import type { AnswerRecord, StoredConversation } from '../responses-store/stored-response.js';
import type { AnswerSaver } from './answer-saver.js';
import type { AnswerTransport, StreamSink } from './answer-transport.js';
import { SocketSink } from './socket-sink.js';

/** What a response needs of its connection (socket-session.ts). */
export interface TransportConnection {
  readonly ws: WebSocket;
  readonly socket: Duplex;
  readonly headers: IncomingHttpHeaders;
  send(text: string): void;
  close(code: number, reason: string, why: 'key_refused'): void;
  /** This response's answer is complete on the wire, or it was refused. */
  responseEnded(transport: SocketTransport): void;
  /** This response finished: the connection's most recent one now. */
  remember(conversation: StoredConversation): void;
}

export class SocketTransport implements AnswerTransport {
  readonly name = 'websocket';
  readonly keepsUnstored = true;
  writableEnded = false;
  private opened = false;
  private gone: (() => void) | undefined;

  constructor(private readonly connection: TransportConnection) {}

  get headers(): IncomingHttpHeaders {
    return this.connection.headers;
  }

  get unanswered(): boolean {
    return !this.opened && !this.writableEnded;
  }

  onCallerGone(cb: () => void): void {
    this.gone = cb;
  }

  /** The connection closed: a response still running is abandoned, as an HTTP client abort. */
  callerGone(): void {
    if (this.writableEnded) return;
    this.writableEnded = true;
    this.gone?.();
  }

  openStream(_heartbeatMs: number): StreamSink {
    this.opened = true;
    return new SocketSink(this.connection.ws, this.connection.socket, () => this.ended());
  }

  /** Never reached: a socket's response.create is always streamed (socket-events.ts sets `stream`). */
  sendJson(): void {
    throw new Error('a WebSocket response is always streamed');
  }

  sendError(codec: InboundCodec, err: GatewayError, _requestId: string): number {
    const { status, text } = codec.socket!.encodeErrorEvent(err);
    this.connection.send(text);
    this.ended();
    // A key that no longer opens the door (revoked by a reload) closes the connection too.
    if (err.kind === 'authentication' || err.kind === 'permission')
      this.connection.close(1008, err.kind === 'authentication' ? 'API key no longer accepted' : 'API key refused', 'key_refused');
    return status;
  }

  keepAnswer(saver: AnswerSaver, id: string, requestId: string, stored: boolean, build: () => AnswerRecord | undefined): void {
    // Called once the last frame is with the socket: built now, so the next response.create finds it.
    let record: AnswerRecord | undefined;
    try {
      record = build();
    } catch {
      return;
    }
    if (!record) return;
    this.connection.remember(onConnection(record, stored));
    if (stored) saver.saveNow(id, requestId, record);
  }

  releaseBody(): void {}

  private ended(): void {
    if (this.writableEnded) return;
    this.writableEnded = true;
    this.connection.responseEnded(this);
  }
}

/**
 * The conversation as the connection keeps it. An answer that was not stored has no producer: an OpenAI
 * deployment asked with `store: false` keeps nothing either, so a continuation sends it the turns.
 */
function onConnection(record: AnswerRecord, stored: boolean): StoredConversation {
  if (stored) return record;
  return {
    id: record.id,
    owner: record.owner,
    createdAt: record.createdAt,
    get turns() {
      return record.turns;
    },
    get system() {
      return record.system;
    },
  };
}
