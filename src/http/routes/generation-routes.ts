// The generation front doors, one route each (codecs/registry.ts). Query strings (`?beta=true`) are
// ignored by routing.
import type { FastifyInstance } from 'fastify';
import { GENERATION_DOORS } from '../../codecs/doors.js';
import { DOOR_CODECS } from '../../codecs/registry.js';
import type { AppContext } from '../context.js';
import { handleHttpGeneration } from '../handle-generation.js';

export function registerGenerationRoutes(app: FastifyInstance, ctx: AppContext): void {
  for (const door of GENERATION_DOORS) {
    const codec = DOOR_CODECS[door];
    if (codec.ownRoutes === true) continue;
    app.post(codec.path, (request, reply) => handleHttpGeneration(ctx, codec, request, reply));
  }
}
