// Whether the shared state store answers, for /readyz: at most one ping a second whatever the probe
// rate (three load balancers probing every 500 ms should not each cost a Redis round trip), and a
// probe answers from the last result while a refresh runs, so it never waits on a slow store
// (only the very first probe waits for its ping, itself bounded by state.op_timeout_ms).
import type { StateStore } from '../state/types.js';

const FRESH_MS = 1000;

/** Only whether: /readyz needs no key, so the store's address and the cause stay in the log and the
 * `switchyard_state_errors_total{op="ping"}` count. */
export interface StoreHealth {
  reachable: boolean;
}

export class StoreProbe {
  private last: StoreHealth | undefined;
  private at = 0;
  private running: Promise<StoreHealth> | undefined;

  constructor(private readonly store: StateStore) {}

  check(now = Date.now()): Promise<StoreHealth> | StoreHealth {
    if (this.last !== undefined && now - this.at < FRESH_MS) return this.last;
    const refresh = (this.running ??= this.store.ping().then(
      () => this.settle({ reachable: true }),
      () => this.settle({ reachable: false }),
    ));
    return this.last ?? refresh;
  }

  private settle(health: StoreHealth): StoreHealth {
    this.last = health;
    this.at = Date.now();
    this.running = undefined;
    return health;
  }
}
