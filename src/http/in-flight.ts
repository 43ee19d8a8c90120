// The generation requests this process is answering, so a shutdown can wait for them and, at its
// deadline, end the ones still running with the protocol's retryable error instead of dropping them.
// One Set insert and delete per request; nothing else happens until a drain asks.
import type { ServerResponse } from 'node:http';
import type { InboundCodec } from '../codecs/types.js';

/** What the cut touches of a Generation (structural: generation.ts sits above this file). */
export interface CuttableGeneration {
  shutdownCut: boolean;
  readonly upstreamAbort: { abort(why: 'shutdown'): void } | undefined;
}

export interface InFlightEntry {
  readonly door: InboundCodec['protocol'];
  readonly res: ServerResponse;
  /** Set once the preamble has built it (undefined while authenticating, decoding, looking up state). */
  gen: CuttableGeneration | undefined;
  /** Cut by the deadline: a Generation built later starts cut. */
  cut: boolean;
}

export interface CutCounts {
  messages: number;
  responses: number;
}

export class InFlight {
  private readonly entries = new Set<InFlightEntry>();
  private waiters: (() => void)[] = [];

  get size(): number {
    return this.entries.size;
  }

  enter(door: InFlightEntry['door'], res: ServerResponse): InFlightEntry {
    const entry: InFlightEntry = { door, res, gen: undefined, cut: false };
    this.entries.add(entry);
    return entry;
  }

  /** The request is over, accounting and all. */
  leave(entry: InFlightEntry): void {
    this.entries.delete(entry);
    if (this.entries.size === 0 && this.waiters.length > 0) {
      const waiters = this.waiters;
      this.waiters = [];
      for (const w of waiters) w();
    }
  }

  /** Resolves true once nothing is in flight, or false after `ms`. */
  idle(ms: number): Promise<boolean> {
    if (this.entries.size === 0) return Promise.resolve(true);
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
    const counts: CutCounts = { messages: 0, responses: 0 };
    for (const entry of this.entries) {
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
