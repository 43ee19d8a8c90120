// Instances seen on a shared Redis: every instance announces itself on one state-store channel every
// few seconds, and every instance lists those it heard from lately. No keys to scan and nothing stored:
// an instance that stops announcing drops off the list after INSTANCE_TTL_MS. The workers of one
// primary announce under one id (host and primary pid), so a --workers machine is one instance.
import { hostname } from 'node:os';
import type { StateStore } from '../state/types.js';

export const INSTANCE_CHANNEL = 'status-instances';
export const ANNOUNCE_MS = 5_000;
export const INSTANCE_TTL_MS = 15_000;

export interface InstanceSeen {
  id: string;
  host: string;
  pid: number;
  version: string;
  last_seen: string;
}

interface Announcement {
  id: string;
  host: string;
  pid: number;
  version: string;
}

export class InstanceRegistry {
  private readonly seen = new Map<string, { a: Announcement; at: number }>();
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private readonly self: Announcement;

  constructor(
    private readonly store: StateStore,
    version: string,
    primaryPid: number,
    private readonly now: () => number = Date.now,
  ) {
    const host = hostname();
    this.self = { id: host + ':' + primaryPid, host, pid: primaryPid, version };
  }

  start(): void {
    this.unsubscribe = this.store.subscribe(INSTANCE_CHANNEL, (text) => {
      try {
        const a = JSON.parse(text) as Announcement;
        if (typeof a?.id === 'string' && typeof a.host === 'string') this.seen.set(a.id, { a, at: this.now() });
      } catch {
        // not ours
      }
    });
    const announce = () => {
      // This instance is alive whether or not its own message comes back (it may not be subscribed yet).
      this.seen.set(this.self.id, { a: this.self, at: this.now() });
      this.store.publish(INSTANCE_CHANNEL, JSON.stringify(this.self)).catch(() => undefined);
    };
    announce();
    this.timer = setInterval(announce, ANNOUNCE_MS);
    this.timer.unref();
  }

  list(): InstanceSeen[] {
    const now = this.now();
    const out: InstanceSeen[] = [];
    for (const [id, { a, at }] of this.seen) {
      if (now - at > INSTANCE_TTL_MS) {
        this.seen.delete(id);
        continue;
      }
      out.push({ id, host: a.host, pid: a.pid, version: String(a.version), last_seen: new Date(at).toISOString() });
    }
    return out.sort((x, y) => (x.id < y.id ? -1 : 1));
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.unsubscribe?.();
  }
}
