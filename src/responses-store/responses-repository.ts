// Stored Responses on top of the shared StateStore (namespace `responses`): what `store: true` keeps,
// what `previous_response_id` continues from, and what GET/DELETE /v1/responses/{id} and
// /input_items serve. Owner isolation is the store's: another owner's id reads as absent.
//
// Layout: the record under its response id, and one small pointer per output item (`item:<id>` →
// response id) so an `item_reference` resolves without scanning. Pointers share the record's TTL and
// byte bound; a pointer whose record was evicted resolves to nothing.
import { RESPONSES_NAMESPACE } from '../state/create-state-store.js';
import type { StateStore } from '../state/types.js';
import {
  decodeStoredConversation,
  decodeStoredResponse,
  encodeStoredResponse,
  type Producer,
  type StoredConversation,
  type StoredResponse,
  type WireItem,
} from './stored-response.js';

export interface ListInputItemsParams {
  /** An item id: list the items that follow it in `order`. */
  after?: string;
  /** An item id: list the items that precede it in `order`. */
  before?: string;
  /** 1–100, default 20. */
  limit?: number;
  /** Default `desc` (newest first), as OpenAI. */
  order?: 'asc' | 'desc';
}

export interface InputItemsPage {
  object: 'list';
  data: WireItem[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}

/** A cursor (`after`/`before`) that names no item of this response. */
export class UnknownCursorError extends Error {
  constructor(
    readonly param: 'after' | 'before',
    id: string,
  ) {
    super(`${param}: no input item with id '${id}' in this response`);
    this.name = 'UnknownCursorError';
  }
}

const ITEM_PREFIX = 'item:';
/** `claim:<response id>` → its owner, readable by the gateway alone (CLAIM_OWNER is no key's name: key
 * names cannot be empty), so a miss can tell "never stored" from "another key's". */
const CLAIM_PREFIX = 'claim:';
const CLAIM_OWNER = '';

export interface ResponsesRepositoryOptions {
  /** How long a stored response lives. */
  ttlMs: number;
  /** `responses_store.max_bytes`; 0 switches storing off (save writes nothing). Default: on. */
  maxBytes?: number;
}

export class ResponsesRepository {
  constructor(
    private readonly store: StateStore,
    private readonly options: ResponsesRepositoryOptions,
  ) {}

  /** False when `responses_store.max_bytes` is 0: callers skip building records at all. */
  get enabled(): boolean {
    return this.options.maxBytes === undefined || this.options.maxBytes > 0;
  }

  /**
   * Stores a finished response and its output-item pointers. Rejects with StateUnavailableError when
   * the backend is away, or a RangeError when the record alone exceeds the namespace's byte bound:
   * callers log, count and carry on (the caller already has its answer).
   */
  async save(record: StoredResponse): Promise<void> {
    if (!this.enabled) return;
    const { ttlMs } = this.options;
    // Record first, so a pointer never names a record that was not written.
    await this.store.putDoc(RESPONSES_NAMESPACE, record.id, record.owner, encodeStoredResponse(record), ttlMs);
    const target = Buffer.from(record.id);
    const puts: Promise<void>[] = [this.store.putDoc(RESPONSES_NAMESPACE, CLAIM_PREFIX + record.id, CLAIM_OWNER, Buffer.from(record.owner), ttlMs)];
    for (const item of outputItems(record)) {
      puts.push(this.store.putDoc(RESPONSES_NAMESPACE, ITEM_PREFIX + item.id, record.owner, target, ttlMs));
    }
    await Promise.all(puts);
  }

  /** The stored response, or undefined when absent, expired, evicted or another owner's. */
  async load(id: string, owner: string): Promise<StoredResponse | undefined> {
    if (id.startsWith(ITEM_PREFIX) || id.startsWith(CLAIM_PREFIX)) return undefined;
    const bytes = await this.store.getDoc(RESPONSES_NAMESPACE, id, owner);
    return bytes === undefined ? undefined : decodeStoredResponse(bytes);
  }

  /** The conversation of a stored response (for `previous_response_id`): the same lookup as `load`,
   * without decoding the response object and input items a continuation does not use. */
  async loadConversation(id: string, owner: string): Promise<StoredConversation | undefined> {
    if (id.startsWith(ITEM_PREFIX) || id.startsWith(CLAIM_PREFIX)) return undefined;
    const bytes = await this.store.getDoc(RESPONSES_NAMESPACE, id, owner);
    return bytes === undefined ? undefined : decodeStoredConversation(bytes);
  }

  /** True when it existed for this owner and is gone now. */
  async delete(id: string, owner: string): Promise<boolean> {
    const record = await this.load(id, owner);
    if (!record) return false;
    const deleted = await this.store.deleteDoc(RESPONSES_NAMESPACE, id, owner);
    await Promise.all([
      ...outputItems(record).map((item) => this.store.deleteDoc(RESPONSES_NAMESPACE, ITEM_PREFIX + item.id, owner)),
      this.store.deleteDoc(RESPONSES_NAMESPACE, CLAIM_PREFIX + id, CLAIM_OWNER),
    ]);
    return deleted;
  }

  /** True when `id` is a live stored response of another owner (never its content). For a miss only:
   * an id this gateway stored for someone else must not be forwarded to an upstream that may know it. */
  async storedForAnother(id: string, owner: string): Promise<boolean> {
    const claim = await this.store.getDoc(RESPONSES_NAMESPACE, CLAIM_PREFIX + id, CLAIM_OWNER);
    return claim !== undefined && Buffer.from(claim).toString() !== owner;
  }

  /** One page of the response's input items; undefined when the response is not this owner's. */
  async listInputItems(id: string, owner: string, params: ListInputItemsParams = {}): Promise<InputItemsPage | undefined> {
    const record = await this.load(id, owner);
    if (!record) return undefined;
    return pageOf(record.inputItems, params);
  }

  /** A stored OUTPUT item (wire JSON) by its id, for `item_reference` inputs. */
  async getItem(itemId: string, owner: string): Promise<WireItem | undefined> {
    return (await this.findItem(itemId, owner))?.item;
  }

  /** The item and the deployment that produced it (which can resolve the reference by itself). */
  async findItem(itemId: string, owner: string): Promise<{ item: WireItem; producer?: Producer } | undefined> {
    const pointer = await this.store.getDoc(RESPONSES_NAMESPACE, ITEM_PREFIX + itemId, owner);
    if (pointer === undefined) return undefined;
    const record = await this.load(Buffer.from(pointer).toString(), owner);
    const item = record ? outputItems(record).find((i) => i.id === itemId) : undefined;
    return item ? { item, producer: record!.producer } : undefined;
  }
}

function outputItems(record: StoredResponse): WireItem[] {
  const output = record.response.output;
  if (!Array.isArray(output)) return [];
  return output.filter((item): item is WireItem => item !== null && typeof item === 'object' && typeof (item as WireItem).id === 'string');
}

/** OpenAI's cursor list: items in `order`, strictly after `after`, strictly before `before`. */
export function pageOf(items: readonly WireItem[], params: ListInputItemsParams): InputItemsPage {
  const ordered = params.order === 'asc' ? items.slice() : items.slice().reverse();
  let start = 0;
  let end = ordered.length;
  if (params.after !== undefined) {
    const at = ordered.findIndex((item) => item.id === params.after);
    if (at < 0) throw new UnknownCursorError('after', params.after);
    start = at + 1;
  }
  if (params.before !== undefined) {
    const at = ordered.findIndex((item) => item.id === params.before);
    if (at < 0) throw new UnknownCursorError('before', params.before);
    end = Math.min(end, at);
  }
  const limit = params.limit ?? 20;
  const window = start < end ? ordered.slice(start, end) : [];
  // With only `before`, the page is the items closest to the cursor (as a "previous page" reads).
  const data = params.before !== undefined && params.after === undefined ? window.slice(Math.max(0, window.length - limit)) : window.slice(0, limit);
  const hasMore = window.length > data.length;
  return {
    object: 'list',
    data,
    first_id: data[0]?.id ?? null,
    last_id: data[data.length - 1]?.id ?? null,
    has_more: hasMore,
  };
}
