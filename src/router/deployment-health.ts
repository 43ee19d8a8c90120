// Per-deployment health: in-flight counts, and a circuit breaker that opens after N failures within
// a window, stays open for a cooldown that doubles on repeated trips, then lets one probe through
// (half-open). Only generation attempts report here; auxiliary calls never trip it.
import type { CooldownPolicy } from '../config/types.js';

export type CircuitState = 'closed' | 'open' | 'half-open';

interface Entry {
  inFlight: number;
  failures: number[];
  state: CircuitState;
  openUntil: number;
  trips: number;
  probing: boolean;
}

export class DeploymentHealth {
  private readonly entries = new Map<string, Entry>();
  /** Called on every state change (metrics). */
  onStateChange: ((deployment: string, state: CircuitState) => void) | undefined;

  private entry(deployment: string): Entry {
    let e = this.entries.get(deployment);
    if (!e) {
      e = { inFlight: 0, failures: [], state: 'closed', openUntil: 0, trips: 0, probing: false };
      this.entries.set(deployment, e);
    }
    return e;
  }

  inFlight(deployment: string): number {
    return this.entries.get(deployment)?.inFlight ?? 0;
  }

  state(deployment: string, now = Date.now()): CircuitState {
    const e = this.entries.get(deployment);
    if (!e) return 'closed';
    if (e.state === 'open' && now >= e.openUntil) this.setState(deployment, e, 'half-open');
    return e.state;
  }

  /** May a request be sent there now? Half-open admits one probe at a time. */
  available(deployment: string, now = Date.now()): boolean {
    const state = this.state(deployment, now);
    if (state === 'closed') return true;
    if (state === 'open') return false;
    return !this.entries.get(deployment)!.probing;
  }

  begin(deployment: string): void {
    const e = this.entry(deployment);
    e.inFlight++;
    if (e.state === 'half-open') e.probing = true;
  }

  end(deployment: string): void {
    const e = this.entry(deployment);
    if (e.inFlight > 0) e.inFlight--;
  }

  success(deployment: string): void {
    const e = this.entry(deployment);
    e.probing = false;
    e.failures.length = 0;
    if (e.state !== 'closed') {
      e.trips = 0;
      this.setState(deployment, e, 'closed');
    }
  }

  failure(deployment: string, policy: CooldownPolicy, now = Date.now()): void {
    const e = this.entry(deployment);
    e.probing = false;
    if (e.state === 'half-open') {
      this.trip(deployment, e, policy, now);
      return;
    }
    e.failures.push(now);
    while (e.failures.length && e.failures[0]! < now - policy.windowMs) e.failures.shift();
    if (e.failures.length >= policy.failures) this.trip(deployment, e, policy, now);
  }

  private trip(deployment: string, e: Entry, policy: CooldownPolicy, now: number): void {
    e.trips++;
    e.failures.length = 0;
    e.openUntil = now + Math.min(policy.cooldownMs * 2 ** (e.trips - 1), policy.maxCooldownMs);
    this.setState(deployment, e, 'open');
  }

  private setState(deployment: string, e: Entry, state: CircuitState): void {
    e.state = state;
    this.onStateChange?.(deployment, state);
  }
}
