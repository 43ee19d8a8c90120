// The Responses door's WebSocket mode (responses.md §1, docs/websocket.md): the client events a socket
// carries and the server events that answer outside a response's own stream. A response itself is the
// stream encoder's events, one per text frame, exactly as over SSE.
//
// Client events: `response.create` (the create body, with `generate: false` for a warm-up that calls no
// model), `response.inject` (input for a running agent: refused with `response.inject.failed`, as this
// gateway runs no server-side agent), `response.processed` (Codex's acknowledgement: nothing to do).
import { GatewayError } from '../../errors.js';
import type { SocketClientEvent, SocketCodec } from '../types.js';
import { errorObject } from '../openai-error.js';

/** Create-body fields that mean nothing on a socket (a response is always streamed). */
const TRANSPORT_FIELDS = new Set(['type', 'stream', 'stream_options', 'generate']);

function decodeClientEvent(event: unknown): SocketClientEvent {
  if (typeof event !== 'object' || event === null || Array.isArray(event)) {
    throw new GatewayError('invalid_request', 'a client event must be a JSON object with a "type"', { param: 'type', code: 'invalid_type' });
  }
  const e = event as Record<string, unknown>;
  switch (e.type) {
    case 'response.create': {
      if (e.background === true) {
        throw new GatewayError('invalid_request', "'background' is not supported over a WebSocket: send POST /v1/responses", { param: 'background', code: 'invalid_value' });
      }
      if (e.generate !== undefined && typeof e.generate !== 'boolean') {
        throw new GatewayError('invalid_request', "Invalid type for 'generate': expected a boolean", { param: 'generate', code: 'invalid_type' });
      }
      const body: Record<string, unknown> = {};
      for (const key in e) if (!TRANSPORT_FIELDS.has(key)) body[key] = e[key];
      body.stream = true;
      return { type: 'create', body, generate: e.generate !== false };
    }
    case 'response.inject': {
      const responseId = typeof e.response_id === 'string' ? e.response_id : '';
      return { type: 'inject', responseId, input: Array.isArray(e.input) ? e.input : [] };
    }
    case 'response.processed':
      return { type: 'ignored' };
    default: {
      const named = typeof e.type === 'string' ? `'${e.type.slice(0, 100)}'` : 'missing';
      throw new GatewayError(
        'invalid_request',
        `Invalid 'type': ${named}. Supported client events: 'response.create', 'response.inject'.`,
        { param: 'type', code: 'unknown_event_type' },
      );
    }
  }
}

/**
 * A failure outside a response's stream, as the `error` event OpenAI sends on a socket: the HTTP status
 * it stands for and the error object nested (what Codex reads), plus the flat `code`/`message`/`param`
 * of the SDK's event type. The nested object is the HTTP envelope's, byte for byte.
 */
function encodeErrorEvent(err: GatewayError): { status: number; text: string } {
  const { status, json, code } = errorObject(err);
  const text =
    '{"type":"error","status":' + status +
    ',"code":' + JSON.stringify(code) +
    ',"message":' + JSON.stringify(err.message) +
    ',"param":' + JSON.stringify(err.param ?? null) +
    ',"error":' + json + '}';
  return { status, text };
}

/** `response.inject` refused: the input is returned uncommitted, as OpenAI does. */
function encodeInjectFailed(responseId: string, input: unknown[], code: 'response_already_completed' | 'response_not_found', message: string): string {
  return JSON.stringify({ type: 'response.inject.failed', sequence_number: 0, response_id: responseId, error: { code, message }, input });
}

export const responsesSocket: SocketCodec = { decodeClientEvent, encodeErrorEvent, encodeInjectFailed };
