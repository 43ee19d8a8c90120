// The generation requests this process is answering, so a shutdown can wait for them and, at its
// deadline, end the ones still running with the protocol's retryable error instead of dropping them.
// An intrusive doubly linked list: two pointer writes to enter and to leave, nothing else until a drain
// asks. (A Set of the entries cost ~20 % of a pass-through request's CPU at saturation: bench/profiles.md.)
import { GENERATION_DOORS, type GenerationDoor } from '../codecs/doors.js';
import type { InboundCodec } from '../codecs/types.js';

/** What the cut touches of a Generation (structural: generation.ts sits above this file). */
export interface CuttableGeneration {
  shutdownCut: boolean;
  readonly upstreamAbort: { abort(why: 'shutdown'): void } | undefined;
}

export interface InFlightEntry {
  readonly door: InboundCodec['protocol'];
  /** The answer's wire (an HTTP reply, a socket transport): its answer is complete once writableEnded. */
  readonly res: { readonly writableEnded: boolean };
  /** Set once the preamble has built it (undefined while authenticating, decoding, looking up state). */
  gen: CuttableGeneration | undefined;
  /** Cut by the deadline: a Generation built later starts cut. */
  cut: boolean;
  /** The list's links (InFlight's own). */
  prev: InFlightEntry | null;
  next: InFlightEntry | null;
}

/** Requests cut, per generation door. */
export type CutCounts = Record<GenerationDoor, number>;

export class InFlight {
  private head: InFlightEntry | null = null;
  private count = 0;
  private waiters: (() => void)[] = [];

  get size(): number {
    return this.count;
  }

  enter(door: InFlightEntry['door'], res: InFlightEntry['res']): InFlightEntry {
    const entry: InFlightEntry = { door, res, gen: undefined, cut: false, prev: null, next: this.head };
    if (this.head) this.head.prev = entry;
    this.head = entry;
    this.count++;
    return entry;
  }

  /** The request is over, accounting and all. Leaving twice changes nothing. */
  leave(entry: InFlightEntry): void {
    if (entry.prev === null && this.head !== entry) return;
    if (entry.prev) entry.prev.next = entry.next;
    else this.head = entry.next;
    if (entry.next) entry.next.prev = entry.prev;
    entry.prev = entry.next = null;
    this.count--;
    if (this.count === 0 && this.waiters.length > 0) {
      const waiters = this.waiters;
      this.waiters = [];
      for (const w of waiters) w();
    }
  }

  /** Resolves true once nothing is in flight, or false after `ms`. */
  idle(ms: number): Promise<boolean> {
    if (this.count === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== done);
        resolve(false);
      }, ms);
      this.waiters.push(done);
    });
  }

  /**
   * The deadline: every request whose answer is not complete is ended. Its upstream call is aborted as
   * `shutdown`, which the lanes turn into `overloaded` (an HTTP 529 / 503 before the first byte; after it,
   * the stream's error event: `overloaded_error`, `response.failed`), and no further attempt starts.
   * A request past its last byte (saving, accounting) is left to finish. Returns the cut per door.
   */
  cut(): CutCounts {
    const counts = Object.fromEntries(GENERATION_DOORS.map((door) => [door, 0])) as CutCounts;
    for (let entry = this.head; entry !== null; entry = entry.next) {
      if (entry.cut || entry.res.writableEnded) continue;
      entry.cut = true;
      counts[entry.door]++;
      const gen = entry.gen;
      if (gen) {
        gen.shutdownCut = true;
        gen.upstreamAbort?.abort('shutdown');
      }
    }
    return counts;
  }
}
