// Stored Responses on top of the shared StateStore (namespace `responses`): what `store: true` keeps,
// what `previous_response_id` continues from, and what GET/DELETE /v1/responses/{id} and
// /input_items serve. Owner isolation is the store's: another owner's id reads as absent.
//
// Layout: the record under its response id (stored-response.ts), and one entry per output item
// (`item:<id>` → its response id) so an `item_reference` resolves with two reads and the parse of that
// response's text (rendered again from the parts for a translated answer), never the conversation's. (Entries of the previous layout held the item's own JSON
// and still read.) Both share the TTL, the byte bound and the owner's share of it.
//
// Claims (the store's claims, outside the byte bound, `claim_ttl_ms` long: OpenAI's retention): the
// response id (`r:<id>`) and each output item id (`i:<id>`) → the key that created them, written even
// when nothing else is stored (`max_bytes: 0`) and kept when the owner deletes the response (a
// tombstone): an id this gateway handed out stays that key's, whatever became of the record, so it is
// never forwarded to an upstream on another key's behalf.
import { RESPONSES_NAMESPACE } from '../state/create-state-store.js';
import type { StateStore } from '../state/types.js';
import {
  decodeStoredConversation,
  decodeStoredResponse,
  encodeAnswerRecord,
  joinUtf8,
  type AnswerRecord,
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
/** Documents of earlier versions (claims kept as documents): never readable as a response. */
const LEGACY_CLAIM_PREFIX = 'claim:';
const RESPONSE_CLAIM = 'r:';
const ITEM_CLAIM = 'i:';
/** OpenAI keeps a stored response 30 days. */
export const DEFAULT_CLAIM_TTL_MS = 30 * 24 * 3_600_000;

export interface ResponsesRepositoryOptions {
  /** How long a stored response lives. */
  ttlMs: number;
  /** `responses_store.max_bytes`; 0 switches storing off (save writes claims only). Default: on. */
  maxBytes?: number;
  /** How long ids stay claimed (default 30 days). */
  claimTtlMs?: number;
}

/** A stored output item and the deployment that produced it (which can resolve the reference itself). */
export interface FoundItem {
  item: WireItem;
  producer?: Producer;
}

const OPEN_BRACE = 0x7b;

export class ResponsesRepository {
  constructor(
    private readonly store: StateStore,
    private readonly options: ResponsesRepositoryOptions,
  ) {}

  /** False when `responses_store.max_bytes` is 0: only claims are written. */
  get enabled(): boolean {
    return this.options.maxBytes === undefined || this.options.maxBytes > 0;
  }

  /**
   * Claims the response's and its output items' ids for its owner, then (unless storing is off) stores
   * the record and its item entries. Rejects with StateUnavailableError when the backend is away, or a
   * RangeError when the record alone exceeds the owner's share of the byte bound: callers log, count
   * and carry on (the caller already has its answer).
   */
  async save(record: AnswerRecord): Promise<void> {
    const claimed = this.store.claim(RESPONSES_NAMESPACE, claimIds(record.id, record.outputItemIds), record.owner, this.options.claimTtlMs ?? DEFAULT_CLAIM_TTL_MS);
    if (!this.enabled) return claimed;
    const { ttlMs } = this.options;
    // Claims and record together (one round trip: a continuation on another process waits for the
    // record); the record before the item entries, so an entry is evicted no earlier than its record.
    await Promise.all([claimed, this.store.putDoc(RESPONSES_NAMESPACE, record.id, record.owner, encodeAnswerRecord(record), ttlMs)]);
    // Items whose id names their response (the gateway's own) need no entry: the record is their entry.
    const foreign = record.outputItemIds.filter((id) => responseOfItem(id) !== record.id);
    if (foreign.length === 0) return;
    const entry = joinUtf8([record.id]);
    await Promise.all(foreign.map((id) => this.store.putDoc(RESPONSES_NAMESPACE, ITEM_PREFIX + id, record.owner, entry, ttlMs)));
  }

  /** The stored response, or undefined when absent, expired, evicted or another owner's. */
  async load(id: string, owner: string): Promise<StoredResponse | undefined> {
    if (notAResponseId(id)) return undefined;
    const bytes = await this.store.getDoc(RESPONSES_NAMESPACE, id, owner);
    return bytes === undefined ? undefined : decodeStoredResponse(bytes);
  }

  /** The conversation of a stored response (for `previous_response_id`): the same lookup as `load`,
   * without decoding the response object and input items a continuation does not use. */
  async loadConversation(id: string, owner: string): Promise<StoredConversation | undefined> {
    if (notAResponseId(id)) return undefined;
    const bytes = await this.store.getDoc(RESPONSES_NAMESPACE, id, owner);
    return bytes === undefined ? undefined : decodeStoredConversation(bytes);
  }

  /** True when it existed for this owner and is gone now. The claims stay (tombstones): the id and its
   * items remain this owner's, so deleting never lifts their protection. */
  async delete(id: string, owner: string): Promise<boolean> {
    const record = await this.load(id, owner);
    if (!record) return false;
    // The tombstone first (a record saved before claims existed has none yet; a claim is never transferred).
    await this.store.claim(RESPONSES_NAMESPACE, claimIds(id, outputItems(record).map((item) => item.id)), owner, this.options.claimTtlMs ?? DEFAULT_CLAIM_TTL_MS);
    const deleted = await this.store.deleteDoc(RESPONSES_NAMESPACE, id, owner);
    await Promise.all(outputItems(record).map((item) => this.store.deleteDoc(RESPONSES_NAMESPACE, ITEM_PREFIX + item.id, owner)));
    return deleted;
  }

  /** The key that created response `id` (its claim), or undefined when no key did (or long ago). */
  async responseOwner(id: string): Promise<string | undefined> {
    return (await this.store.claimOwners(RESPONSES_NAMESPACE, [RESPONSE_CLAIM + id]))[0];
  }

  /** The keys that created output items `ids`, in order (undefined: no claim). */
  async itemOwners(ids: readonly string[]): Promise<(string | undefined)[]> {
    // An id of the gateway's own making is claimed as its response (or, saved by an earlier version or
    // under another response, on its own): both read in one call, the item's own claim first.
    const keys: string[] = [];
    for (const id of ids) {
      const own = responseOfItem(id);
      keys.push(ITEM_CLAIM + id);
      if (own !== undefined) keys.push(RESPONSE_CLAIM + own);
    }
    const owners = await this.store.claimOwners(RESPONSES_NAMESPACE, keys);
    let k = 0;
    return ids.map((id) => {
      const mine = owners[k++];
      const viaResponse = responseOfItem(id) === undefined ? undefined : owners[k++];
      return mine ?? viaResponse;
    });
  }

  /** One page of the response's input items; undefined when the response is not this owner's. */
  async listInputItems(id: string, owner: string, params: ListInputItemsParams = {}): Promise<InputItemsPage | undefined> {
    const record = await this.load(id, owner);
    if (!record) return undefined;
    return pageOf(record.inputItems, params);
  }

  /** A stored OUTPUT item (wire JSON) by its id, for `item_reference` inputs. */
  async getItem(itemId: string, owner: string): Promise<WireItem | undefined> {
    return (await this.findItems([itemId], owner))[0]?.item;
  }

  /**
   * Output items of this owner by id (pass distinct ids), in order; undefined where there is none. One
   * read per id, each parsing the item's own entry; an entry of an earlier version (the response id
   * only) loads its record, once per record however many of its items are asked for.
   */
  async findItems(ids: readonly string[], owner: string): Promise<(FoundItem | undefined)[]> {
    const records = new Map<string, Promise<StoredResponse | undefined>>();
    const recordOf = (responseId: string) => {
      let loading = records.get(responseId);
      if (!loading) records.set(responseId, (loading = this.load(responseId, owner)));
      return loading;
    };
    const inRecord = async (responseId: string, itemId: string): Promise<FoundItem | undefined> => {
      const record = await recordOf(responseId);
      const item = record ? outputItems(record).find((i) => i.id === itemId) : undefined;
      return item ? { item, producer: record!.producer } : undefined;
    };
    return Promise.all(
      ids.map(async (id): Promise<FoundItem | undefined> => {
        const own = responseOfItem(id);
        const found = own === undefined ? undefined : await inRecord(own, id);
        if (found) return found;
        // An entry: the response id, or (earlier layouts) the item's own JSON, which can outlive its record.
        const entry = await this.store.getDoc(RESPONSES_NAMESPACE, ITEM_PREFIX + id, owner);
        if (entry === undefined) return undefined;
        const buf = Buffer.from(entry.buffer, entry.byteOffset, entry.byteLength);
        if (buf[0] === OPEN_BRACE) {
          const e = JSON.parse(buf.toString('utf8')) as { p?: Producer; i: WireItem };
          return { item: e.i, producer: e.p };
        }
        return inRecord(buf.toString('utf8'), id);
      }),
    );
  }
}

/** The claims of a response: its id and its output items' ids (an id of the gateway's own making is its
 * response's: claimed as that, responseOfItem). */
function claimIds(responseId: string, itemIds: readonly string[]): string[] {
  const ids = [RESPONSE_CLAIM + responseId];
  for (const id of itemIds) if (responseOfItem(id) !== responseId) ids.push(ITEM_CLAIM + id);
  return ids;
}

// The output item ids the gateway makes (codecs/openai-responses/output-items.ts: `<kind>_<stem>_<index>`,
// the stem being the response id after `resp_`). OpenAI's own ids have no `_<index>` tail.
const OWN_ITEM_ID = /^(?:msg|rs|fc|ctc)_([A-Za-z0-9]+)_\d+$/;

/** The response an output item id of the gateway's own making belongs to, else undefined. */
export function responseOfItem(itemId: string): string | undefined {
  const m = OWN_ITEM_ID.exec(itemId);
  return m ? 'resp_' + m[1] : undefined;
}

function notAResponseId(id: string): boolean {
  return id.startsWith(ITEM_PREFIX) || id.startsWith(LEGACY_CLAIM_PREFIX);
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
