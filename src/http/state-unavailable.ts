// The caller's view of a state store that cannot be reached: a 503 in the door's envelope saying
// `state store unavailable`. The backend's address and cause go to the log, never to the caller.
import { GatewayError } from '../errors.js';
import type { StateUnavailableError } from '../state/types.js';
import type { AppContext } from './context.js';

export function stateUnavailable(ctx: Pick<AppContext, 'logger'>, err: StateUnavailableError, doing = 'continue this conversation'): GatewayError {
  ctx.logger.warn({ op: err.op, err: err.message }, 'state store unavailable');
  return new GatewayError('unavailable', `state store unavailable: cannot ${doing} right now; retry shortly`);
}
