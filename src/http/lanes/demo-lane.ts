// The in-process demo provider, delivered like any upstream stream (no network).
import { demoEvents } from '../../drivers/demo/demo-reply.js';
import type { RouteTarget } from '../../router/model-table.js';
import { EventDelivery } from '../event-delivery.js';
import type { Generation } from '../generation.js';

export function runDemoLane(gen: Generation, target: RouteTarget): Promise<void> {
  const now = performance.now();
  gen.rec.tUpstreamSent = gen.rec.tUpstreamHeaders = gen.rec.tUpstreamFirstByte = now;
  const delivery = new EventDelivery(gen, target);
  for (const ev of demoEvents(gen.ir, gen.responseId)) delivery.emit(ev);
  gen.rec.tUpstreamEnd = performance.now();
  delivery.end();
  return delivery.done;
}
