// Which gateway processes share this state store: each one says hello on a channel when it starts,
// every `heartbeatMs` after, and once more when it hears an instance it did not know (so a newcomer learns
// of the others at once); one not heard for `ttlMs` is gone. It says goodbye when it closes. Used on the
// Redis backend, where instances on several machines share everything: /readyz and the
// `switchyard_instances` gauge count them, /status.json lists them, and the first sighting of another is
// logged with what is shared.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { StateStore } from './types.js';

export const INSTANCES_CHANNEL = 'instances';

export interface InstanceInfo {
  id: string;
  host: string;
  pid: number;
  startedAt: number;
  /** The gateway's package version ('' when an instance did not say). */
  version: string;
}

interface Message extends InstanceInfo {
  bye?: true;
}

export interface InstanceRegistryOptions {
  /** This gateway's version, told to the others (the status page lists it). */
  version?: string;
  heartbeatMs?: number;
  ttlMs?: number;
  /** The number of live instances (this one included) changed. */
  onCount?(count: number): void;
  onError?(err: unknown): void;
}

export class InstanceRegistry {
  readonly self: InstanceInfo;
  private readonly others = new Map<string, { info: InstanceInfo; seen: number }>();
  private readonly heartbeatMs: number;
  private readonly ttlMs: number;
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private lastCount = 1;
  private lastHello = 0;

  constructor(
    private readonly store: StateStore,
    private readonly options: InstanceRegistryOptions = {},
  ) {
    this.self = { id: randomBytes(8).toString('hex'), host: hostname(), pid: process.pid, startedAt: Date.now(), version: options.version ?? '' };
    this.heartbeatMs = options.heartbeatMs ?? 5000;
    this.ttlMs = options.ttlMs ?? 3 * this.heartbeatMs;
  }

  start(): void {
    if (this.timer) return;
    this.unsubscribe = this.store.subscribe(INSTANCES_CHANNEL, (text) => this.heard(text));
    this.hello();
    this.timer = setInterval(() => {
      this.hello();
      this.prune(Date.now());
    }, this.heartbeatMs);
    this.timer.unref();
  }

  /** Every live instance, this one first. */
  list(now = Date.now()): InstanceInfo[] {
    this.prune(now);
    return [this.self, ...[...this.others.values()].map((o) => o.info)];
  }

  /** Every live instance with when it was last heard (this one: now), this one first. */
  listSeen(now = Date.now()): { info: InstanceInfo; seen: number }[] {
    this.prune(now);
    return [{ info: this.self, seen: now }, ...this.others.values()];
  }

  /** Says goodbye (best effort) and stops listening. */
  async stop(): Promise<void> {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    await this.send({ ...this.self, bye: true });
  }

  private hello(): void {
    this.lastHello = Date.now();
    void this.send(this.self);
  }

  private send(message: Message): Promise<void> {
    return this.store.publish(INSTANCES_CHANNEL, JSON.stringify(message)).catch((err: unknown) => this.options.onError?.(err));
  }

  private heard(text: string): void {
    let m: Message;
    try {
      m = JSON.parse(text) as Message;
    } catch {
      return;
    }
    if (typeof m?.id !== 'string' || m.id === this.self.id) return;
    if (m.bye) {
      this.others.delete(m.id);
    } else {
      const known = this.others.has(m.id);
      this.others.set(m.id, { info: { id: m.id, host: String(m.host), pid: Number(m.pid), startedAt: Number(m.startedAt), version: String(m.version ?? '') }, seen: Date.now() });
      // A newcomer learns of this instance now rather than at the next heartbeat (at most once a second).
      if (!known && Date.now() - this.lastHello > 1000) this.hello();
    }
    this.countChanged();
  }

  private prune(now: number): void {
    for (const [id, o] of this.others) if (now - o.seen > this.ttlMs) this.others.delete(id);
    this.countChanged();
  }

  private countChanged(): void {
    const count = this.others.size + 1;
    if (count === this.lastCount) return;
    this.lastCount = count;
    this.options.onCount?.(count);
  }
}
