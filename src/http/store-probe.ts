// Whether the shared state store answers, for /readyz: at most one ping a second whatever the probe
// rate (three load balancers probing every 500 ms should not each cost a Redis round trip), and a
// probe answers from the last result while a refresh runs, so it never waits on a slow store. A ping
// still pending after `boundMs` (state.op_timeout_ms) counts as unreachable, whatever the store does
// meanwhile; so /readyz turns 503 at most 1 s + op_timeout_ms after the store stops answering.
import type { StateStore } from '../state/types.js';

const FRESH_MS = 1000;

/** Only whether: /readyz needs no key, so the store's address and the cause stay in the log and the
 * `switchyard_state_errors_total{op="ping"}` count. */
export interface StoreHealth {
  reachable: boolean;
}

const REACHABLE: StoreHealth = Object.freeze({ reachable: true });
const UNREACHABLE: StoreHealth = Object.freeze({ reachable: false });

export class StoreProbe {
  private last: StoreHealth | undefined;
  private at = 0;
  private running: Promise<StoreHealth> | undefined;
  private runningSince = 0;
  private firstWait: Promise<StoreHealth> | undefined;

  constructor(
    private readonly store: StateStore,
    /** How long a ping may be pending before the store counts as unreachable. */
    private readonly boundMs: number,
  ) {}

  check(now = Date.now()): Promise<StoreHealth> | StoreHealth {
    if (this.last !== undefined && now - this.at < FRESH_MS) return this.last;
    let running = this.running;
    if (running === undefined) {
      this.runningSince = now;
      const ping: Promise<StoreHealth> = this.store.ping().then(
        () => this.settle(ping, REACHABLE),
        () => this.settle(ping, UNREACHABLE),
      );
      this.running = running = ping;
    }
    if (now - this.runningSince >= this.boundMs) return UNREACHABLE;
    if (this.last !== undefined) return this.last;
    // The very first probe waits for its ping, at most boundMs (one wait, shared by the probes meanwhile).
    return (this.firstWait ??= new Promise<StoreHealth>((resolve) => {
      const timer = setTimeout(() => resolve(UNREACHABLE), Math.max(0, this.boundMs - (now - this.runningSince)));
      void running.then((health) => {
        clearTimeout(timer);
        resolve(health);
      });
    }));
  }

  private settle(ping: Promise<StoreHealth>, health: StoreHealth): StoreHealth {
    if (this.running !== ping) return health;
    this.last = health;
    this.at = Date.now();
    this.running = undefined;
    return health;
  }
}
