// Per-deployment health: in-flight counts, and a circuit breaker that opens after N failures within
// a window, stays open for a cooldown that doubles on repeated trips, then lets one probe through
// (half-open). Only generation attempts report here; auxiliary calls never trip it.
//
// A wildcard route makes one deployment per caller-chosen model name, so the table is bounded: it is
// kept in least-recently-used order, and when a new entry comes in, idle closed entries at the cold end
// are dropped (those unused for `idleMs`, and any needed to stay under `maxEntries`). An entry with a
// request in flight, or an open or half-open circuit, is never dropped: losing it would forget a trip.
import type { CooldownPolicy } from '../config/types.js';

export type CircuitState = 'closed' | 'open' | 'half-open';

/** A circuit opened (for `openMs`, after `trips` trips in a row) or closed, as processes share it. */
export type CircuitChange = { deployment: string; state: 'open'; openMs: number; trips: number } | { deployment: string; state: 'closed' };

interface Entry {
  /** Last begin() (or creation): the LRU order's clock. */
  usedAt: number;
  inFlight: number;
  failures: number[];
  state: CircuitState;
  openUntil: number;
  trips: number;
  probing: boolean;
}

export interface HealthTableBounds {
  /** The table's soft bound: beyond it, idle closed entries are dropped, least recently used first. */
  maxEntries: number;
  /** A closed entry with nothing in flight, unused this long, is dropped when a new one comes in. */
  idleMs: number;
}

const DEFAULT_BOUNDS: HealthTableBounds = { maxEntries: 1000, idleMs: 10 * 60_000 };
/** Entries looked at from the cold end per new entry: the work per request stays constant. */
const PRUNE_SCAN = 16;

export class DeploymentHealth {
  /** Map order is the LRU order: begin() moves an entry to the end. */
  private readonly entries = new Map<string, Entry>();
  private readonly bounds: HealthTableBounds;
  /** Called on every state change (metrics). */
  onStateChange: ((deployment: string, state: CircuitState) => void) | undefined;
  /** Called when this process opens or closes a circuit (not for remote ones): circuit-sync.ts shares it. */
  onLocalTransition: ((change: CircuitChange) => void) | undefined;

  constructor(bounds: Partial<HealthTableBounds> = {}) {
    this.bounds = { ...DEFAULT_BOUNDS, ...bounds };
  }

  /** Entries held now (bounded; see the file comment). */
  get size(): number {
    return this.entries.size;
  }

  private entry(deployment: string, now = Date.now()): Entry {
    let e = this.entries.get(deployment);
    if (!e) {
      this.prune(now);
      e = { usedAt: now, inFlight: 0, failures: [], state: 'closed', openUntil: 0, trips: 0, probing: false };
      this.entries.set(deployment, e);
    }
    return e;
  }

  /** Drop idle entries from the cold end: expired ones, and enough to stay under maxEntries. */
  private prune(now: number): void {
    let over = this.entries.size + 1 - this.bounds.maxEntries;
    let scanned = 0;
    for (const [deployment, e] of this.entries) {
      if (scanned++ === PRUNE_SCAN) break;
      const expired = now - e.usedAt >= this.bounds.idleMs;
      if (!expired && over <= 0) break;
      if (e.inFlight > 0 || e.probing) continue;
      // An open circuit is state worth keeping until its cooldown is long over.
      if (e.state !== 'closed' && !(e.state === 'open' && expired && now - e.openUntil >= this.bounds.idleMs)) continue;
      this.entries.delete(deployment);
      over--;
    }
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

  /** Milliseconds until an open circuit lets a probe through (0 when not open). */
  msUntilProbe(deployment: string, now = Date.now()): number {
    const e = this.entries.get(deployment);
    return e && this.state(deployment, now) === 'open' ? Math.max(0, e.openUntil - now) : 0;
  }

  begin(deployment: string): void {
    const now = Date.now();
    const e = this.entry(deployment, now);
    // Most recently used goes last (Map order), so pruning finds the cold entries first.
    this.entries.delete(deployment);
    this.entries.set(deployment, e);
    e.usedAt = now;
    e.inFlight++;
    if (e.state === 'half-open') e.probing = true;
  }

  /** The attempt is over, whatever its outcome: a probe that ended without a verdict (the caller
   * left, the request itself was refused) frees the half-open slot for the next one. */
  end(deployment: string): void {
    const e = this.entry(deployment);
    if (e.inFlight > 0) e.inFlight--;
    e.probing = false;
  }

  success(deployment: string): void {
    const e = this.entry(deployment);
    // A request that was already running when the circuit opened proves little: wait for the probe.
    if (e.state === 'open') return;
    e.probing = false;
    e.failures.length = 0;
    if (e.state !== 'closed') {
      e.trips = 0;
      this.setState(deployment, e, 'closed');
      this.onLocalTransition?.({ deployment, state: 'closed' });
    }
  }

  /**
   * Another process opened or closed this deployment's circuit: take its state as ours. An open one
   * lasts the remaining time it reports (a relative time: instances' clocks may differ); requests in
   * flight here finish as they would after a local trip.
   */
  applyRemote(change: CircuitChange, now = Date.now()): void {
    const e = this.entry(change.deployment);
    e.failures.length = 0;
    e.probing = false;
    if (change.state === 'open') {
      e.trips = Math.max(e.trips, change.trips);
      e.openUntil = Math.max(e.state === 'open' ? e.openUntil : 0, now + change.openMs);
      if (e.state !== 'open') this.setState(change.deployment, e, 'open');
      return;
    }
    if (e.state === 'closed') return;
    e.trips = 0;
    this.setState(change.deployment, e, 'closed');
  }

  failure(deployment: string, policy: CooldownPolicy, now = Date.now()): void {
    const e = this.entry(deployment);
    // Stragglers that started before the trip must not stretch the cooldown: it grows on failed
    // probes (repeated trips), not on how many requests happened to be in flight.
    if (e.state === 'open') return;
    e.probing = false;
    if (e.state === 'half-open') {
      this.trip(deployment, e, policy, now);
      return;
    }
    e.failures.push(now);
    while (e.failures.length && e.failures[0]! <= now - policy.windowMs) e.failures.shift();
    if (e.failures.length >= policy.failures) this.trip(deployment, e, policy, now);
  }

  private trip(deployment: string, e: Entry, policy: CooldownPolicy, now: number): void {
    e.trips++;
    e.failures.length = 0;
    const openMs = Math.min(policy.cooldownMs * 2 ** (e.trips - 1), policy.maxCooldownMs);
    e.openUntil = now + openMs;
    this.setState(deployment, e, 'open');
    this.onLocalTransition?.({ deployment, state: 'open', openMs, trips: e.trips });
  }

  private setState(deployment: string, e: Entry, state: CircuitState): void {
    e.state = state;
    this.onStateChange?.(deployment, state);
  }
}
