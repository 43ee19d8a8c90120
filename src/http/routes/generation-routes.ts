// The two front doors. Query strings (`?beta=true`) are ignored by routing.
import type { FastifyInstance } from 'fastify';
import { messagesCodec } from '../../codecs/anthropic-messages/index.js';
import { responsesCodec } from '../../codecs/openai-responses/index.js';
import type { AppContext } from '../context.js';
import { handleGeneration } from '../handle-generation.js';

export function registerGenerationRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post('/v1/messages', (request, reply) => handleGeneration(ctx, messagesCodec, request, reply));
  app.post('/v1/responses', (request, reply) => handleGeneration(ctx, responsesCodec, request, reply));
}
