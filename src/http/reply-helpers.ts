// Small pieces every route uses: the request id, and errors rendered in the caller's envelope.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { InboundCodec } from '../codecs/types.js';
import type { GatewayError } from '../errors.js';
import { maskedForCaller } from './caller-safe-error.js';
import { newId } from './ids.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Masks configured secrets and credential-shaped tokens (app.ts: the logger's masker, current config). */
    maskSecrets: ((text: string) => string) | undefined;
  }
}

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's x-request-id when it is sane, else a fresh `req_…`. */
export function requestIdFor(request: FastifyRequest): string {
  const given = request.headers['x-request-id'];
  if (typeof given === 'string' && SAFE_ID.test(given)) return given;
  return newId('req_');
}

/** Sends the error, its message masked (it may quote an upstream's text); returns the status used. */
export function sendError(reply: FastifyReply, codec: InboundCodec, err: GatewayError, requestId: string): number {
  const mask = reply.server.maskSecrets;
  const encoded = codec.encodeError(mask === undefined ? err : maskedForCaller(err, mask), requestId);
  reply
    .code(encoded.status)
    .headers(encoded.headers)
    .header(codec.requestIdHeader, requestId)
    .type('application/json')
    .send(encoded.body);
  return encoded.status;
}
