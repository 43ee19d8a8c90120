// A bounded in-memory store of finished Responses conversations, so translated requests can continue
// with `previous_response_id` (OpenAI-backed pass-through requests are resolved by OpenAI itself).
// Entries expire after a TTL and the oldest are evicted first. `instructions` are never inherited.
import type { Turn } from '../ir/types.js';

interface Entry {
  turns: Turn[];
  expiresAt: number;
}

export class ResponseStore {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly maxEntries: number,
    private readonly ttlMs: number,
  ) {}

  put(id: string, turns: Turn[], now = Date.now()): void {
    if (this.maxEntries === 0) return;
    this.entries.delete(id);
    this.entries.set(id, { turns, expiresAt: now + this.ttlMs });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  get(id: string, now = Date.now()): Turn[] | undefined {
    const e = this.entries.get(id);
    if (!e) return undefined;
    if (e.expiresAt <= now) {
      this.entries.delete(id);
      return undefined;
    }
    return e.turns;
  }

  get size(): number {
    return this.entries.size;
  }
}
