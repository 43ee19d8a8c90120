// What one stored Response holds, and its compact encoding (JSON → bytes, one version tag).
//
// Trade-off: each record carries the WHOLE conversation as IR turns (every earlier turn, this
// request's input, this answer), not a pointer to its predecessor. A `previous_response_id` is then
// one lookup in front of the request (the only state call on the hot path), and evicting or deleting
// an older response never breaks a later one's continuation. The cost is bytes: a long conversation
// is stored once per turn (quadratic in its length), which the namespace's byte bound caps.
import type { Turn } from '../ir/types.js';

/** A Responses wire item (input or output), as JSON. Every stored item has an `id`. */
export type WireItem = { id: string; type?: string } & Record<string, unknown>;

export interface StoredResponse {
  /** The response id (`resp_…`). */
  id: string;
  /** The gateway key name that created it (`anonymous` when the gateway is open). */
  owner: string;
  /** Seconds since the epoch, as `response.created_at`. */
  createdAt: number;
  /** The Responses response object exactly as returned to the caller. */
  response: Record<string, unknown> & { output?: unknown };
  /** This request's input items in request order, each with an id (what `input_items` lists). */
  inputItems: WireItem[];
  /** The whole conversation as IR turns, this answer included: what a continuation starts from. */
  turns: Turn[];
  /** The deployment that produced the answer: a continuation on that same OpenAI Responses deployment
   * forwards `previous_response_id` (OpenAI keeps its own state); any other gets the stored turns. */
  producer?: Producer;
}

export interface Producer {
  provider: string;
  model: string;
  protocol: string;
}

const VERSION = 1;

export function encodeStoredResponse(record: StoredResponse): Buffer {
  return Buffer.from(
    JSON.stringify({
      v: VERSION,
      id: record.id,
      owner: record.owner,
      created_at: record.createdAt,
      response: record.response,
      input_items: record.inputItems,
      turns: record.turns,
      producer: record.producer,
    }),
  );
}

export function decodeStoredResponse(bytes: Uint8Array): StoredResponse | undefined {
  const raw = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')) as {
    v: number;
    id: string;
    owner: string;
    created_at: number;
    response: StoredResponse['response'];
    input_items: WireItem[];
    turns: Turn[];
    producer?: Producer;
  };
  // A record from a newer gateway we cannot read is treated as absent rather than misread.
  if (raw.v !== VERSION) return undefined;
  return { id: raw.id, owner: raw.owner, createdAt: raw.created_at, response: raw.response, inputItems: raw.input_items, turns: raw.turns, producer: raw.producer };
}
