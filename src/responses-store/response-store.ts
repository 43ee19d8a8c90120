// A bounded in-memory store of finished Responses conversations, so translated requests can continue
// with `previous_response_id` (OpenAI-backed pass-through requests are resolved by OpenAI itself),
// and of their output items, addressable by item id for `item_reference` inputs. Items belong to the
// gateway key that created the response: another key never resolves them. Entries expire after a TTL
// and the oldest are evicted first, their items with them. `instructions` are never inherited.
import type { Turn } from '../ir/types.js';

/** An output item as the caller received it (Responses wire JSON). */
export type StoredItem = Record<string, unknown>;

interface Entry {
  turns: Turn[];
  expiresAt: number;
  /** Keys into `items` of this response's output items. */
  itemKeys: string[];
}

/** The output items of a stored response and the key (owner) that created it. */
export interface StoredOutput {
  owner: string;
  items: readonly StoredItem[];
}

export class ResponseStore {
  private readonly entries = new Map<string, Entry>();
  private readonly items = new Map<string, StoredItem>();

  constructor(
    private readonly maxEntries: number,
    private readonly ttlMs: number,
  ) {}

  put(id: string, turns: Turn[], now = Date.now(), output?: StoredOutput): void {
    if (this.maxEntries === 0) return;
    this.remove(id);
    const itemKeys: string[] = [];
    if (output) {
      for (const item of output.items) {
        if (typeof item.id !== 'string') continue;
        const key = itemKey(item.id, output.owner);
        this.items.set(key, item);
        itemKeys.push(key);
      }
    }
    this.entries.set(id, { turns, expiresAt: now + this.ttlMs, itemKeys });
    while (this.entries.size > this.maxEntries) this.remove(this.entries.keys().next().value as string);
  }

  get(id: string, now = Date.now()): Turn[] | undefined {
    const e = this.entries.get(id);
    if (!e) return undefined;
    if (e.expiresAt <= now) {
      this.remove(id);
      return undefined;
    }
    return e.turns;
  }

  /**
   * An output item of an earlier response created by `owner`. Async like the shared store's lookup
   * that replaces this one, so callers do not change.
   */
  getItem(itemId: string, owner: string, now = Date.now()): Promise<StoredItem | undefined> {
    return Promise.resolve(this.itemNow(itemId, owner, now));
  }

  get size(): number {
    return this.entries.size;
  }

  private itemNow(itemId: string, owner: string, now: number): StoredItem | undefined {
    const item = this.items.get(itemKey(itemId, owner));
    if (item === undefined) return undefined;
    // An item expires with its response. Entries are in write order under one TTL, so the expired
    // ones are a prefix: drop it, then look again.
    for (const [id, e] of this.entries) {
      if (e.expiresAt > now) break;
      this.remove(id);
    }
    return this.items.get(itemKey(itemId, owner));
  }

  private remove(id: string): void {
    const e = this.entries.get(id);
    if (!e) return;
    for (const key of e.itemKeys) this.items.delete(key);
    this.entries.delete(id);
  }
}

function itemKey(itemId: string, owner: string): string {
  return owner + '\u0000' + itemId;
}
