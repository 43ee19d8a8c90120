// What one stored Response holds, and its compact encoding (JSON → bytes, one version tag).
//
// Trade-off: each record carries the WHOLE conversation as IR turns (every earlier turn, this
// request's input, this answer), not a pointer to its predecessor. A `previous_response_id` is then
// one lookup for the request (after admission), and evicting or deleting
// an older response never breaks a later one's continuation. The cost is bytes: a long conversation
// is stored once per turn (quadratic in its length), which the namespace's byte bound caps.
import type { Turn } from '../ir/types.js';

/** A Responses wire item (input or output), as JSON. Every stored item has an `id`. */
export type WireItem = { id: string; type?: string } & Record<string, unknown>;

/** What a continuation needs of a stored response: the conversation and who produced it. */
export interface StoredConversation {
  /** The response id (`resp_…`). */
  id: string;
  /** The gateway key name that created it (`anonymous` when the gateway is open). */
  owner: string;
  /** Seconds since the epoch, as `response.created_at`. */
  createdAt: number;
  /** The whole conversation as IR turns, this answer included: what a continuation starts from. */
  turns: Turn[];
  /** The deployment that produced the answer: a continuation on that same OpenAI Responses deployment
   * forwards `previous_response_id` (OpenAI keeps its own state); any other gets the stored turns. */
  producer?: Producer;
}

export interface StoredResponse extends StoredConversation {
  /** The Responses response object exactly as returned to the caller. */
  response: Record<string, unknown> & { output?: unknown };
  /** `response` as the JSON text the caller got, when the lane has it: encoded as is, not serialised again. */
  responseJson?: string;
  /** This request's input items in request order, each with an id (what `input_items` lists). */
  inputItems: WireItem[];
}

export interface Producer {
  provider: string;
  model: string;
  protocol: string;
}

// Two JSON lines: the conversation first, then the response and its input items. A continuation (the
// lookup in front of a request) parses the first line only; the stored-response routes read both.
// JSON.stringify never writes a raw newline, so the first one is the boundary. Version 1 was one line.
const VERSION = 2;
const NEWLINE = 10;

export function encodeStoredResponse(record: StoredResponse): Buffer {
  const head = JSON.stringify({ v: VERSION, id: record.id, owner: record.owner, created_at: record.createdAt, producer: record.producer, turns: record.turns });
  // The body line is read whole by JSON.parse, so the response text may keep the caller's own layout.
  // The pieces go straight into one buffer: joining them first would copy the whole record once more.
  return joinUtf8([head, '\n{"response":', record.responseJson ?? JSON.stringify(record.response), ',"input_items":', JSON.stringify(record.inputItems), '}']);
}

// Encoded records are cut from shared slabs (as node's Buffer pool does for small buffers): a record
// of its own ArrayBuffer cost an allocation, external-memory accounting and a free on the GC's sweeper
// thread per save. A slab lives while any record cut from it does; the memory backend evicts in
// written order, so a slab's records go at about the same time.
const SLAB_BYTES = 256 * 1024;
let slab = Buffer.allocUnsafeSlow(0);
let slabAt = 0;

/** The strings' UTF-8 bytes, one after the other, in one buffer (a slice of a slab when small). */
export function joinUtf8(parts: readonly string[]): Buffer {
  let size = 0;
  for (const p of parts) size += Buffer.byteLength(p, 'utf8');
  let buf: Buffer;
  if (size > SLAB_BYTES / 4) buf = Buffer.allocUnsafeSlow(size);
  else {
    if (slab.length - slabAt < size) {
      slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
      slabAt = 0;
    }
    buf = slab.subarray(slabAt, slabAt + size);
    slabAt += (size + 7) & ~7;
  }
  let at = 0;
  for (const p of parts) at += buf.write(p, at, 'utf8');
  return buf;
}

interface Head {
  v: number;
  id: string;
  owner: string;
  created_at: number;
  producer?: Producer;
  turns: Turn[];
}

interface Body {
  response: StoredResponse['response'];
  input_items: WireItem[];
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function conversationOf(head: Head): StoredConversation {
  return { id: head.id, owner: head.owner, createdAt: head.created_at, turns: head.turns, producer: head.producer };
}

/** The conversation only (no response, no input items): what `previous_response_id` needs. */
export function decodeStoredConversation(bytes: Uint8Array): StoredConversation | undefined {
  const buf = asBuffer(bytes);
  const nl = buf.indexOf(NEWLINE);
  if (nl < 0) return decodeVersion1(buf);
  const head = JSON.parse(buf.toString('utf8', 0, nl)) as Head;
  // A record from a newer gateway we cannot read is treated as absent rather than misread.
  return head.v === VERSION ? conversationOf(head) : undefined;
}

export function decodeStoredResponse(bytes: Uint8Array): StoredResponse | undefined {
  const buf = asBuffer(bytes);
  const nl = buf.indexOf(NEWLINE);
  if (nl < 0) return decodeVersion1(buf);
  const head = JSON.parse(buf.toString('utf8', 0, nl)) as Head;
  if (head.v !== VERSION) return undefined;
  const body = JSON.parse(buf.toString('utf8', nl + 1)) as Body;
  return { ...conversationOf(head), response: body.response, inputItems: body.input_items };
}

/** Records written before the two-line layout (one JSON object). */
function decodeVersion1(buf: Buffer): StoredResponse | undefined {
  const raw = JSON.parse(buf.toString('utf8')) as Head & Body;
  if (raw.v !== 1) return undefined;
  return { ...conversationOf(raw), response: raw.response, inputItems: raw.input_items };
}
