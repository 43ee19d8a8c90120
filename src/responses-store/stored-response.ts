// What one stored Response holds, and its compact encoding (versions 3 and 4: texts, then a small JSON head).
//
// Trade-off: each record carries the WHOLE conversation (every earlier turn, this request's input,
// this answer), not a pointer to its predecessor. A `previous_response_id` is then one lookup for the
// request (after admission), and evicting or deleting an older response never breaks a later one's
// continuation. The cost is bytes: a long conversation is stored once per turn (quadratic in its
// length), which the namespace's byte bound caps.
//
// Saving is on every default Responses request (`store` unset), reading is rare (a continuation, GET,
// `input_items`, an `item_reference`), so a record keeps texts the request already had, not objects
// re-serialised: the request body as the caller sent it, this answer's IR parts, and (continuations
// only) the earlier turns. The response is kept as the caller got it when it came from a Responses
// upstream as it is (version 3, no parts: they are decoded from it when read); a translated answer's
// response is the gateway's own rendering of its parts, so it is rendered again when read (version 4:
// no response text, its finish, usage and completed_at in the head). The input items and this
// request's turns are derived from the body when a record is read.
import { createHash } from 'node:crypto';
import { decodeRequest, inputSystemParts } from '../codecs/openai-responses/decode-request.js';
import { encodeResult } from '../codecs/openai-responses/encode-result.js';
import { decodeResponsesResult } from '../drivers/openai-responses/decode-result.js';
import { GatewayError } from '../errors.js';
import { ALREADY_CHECKED } from '../ir/media-url.js';
import type { Finish, OutputPart, TextPart, Turn, Usage } from '../ir/types.js';
import { inputItemsOf, type WireItem } from './input-items.js';

export type { WireItem } from './input-items.js';

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
  /** The conversation's system/developer input messages, in order (never `instructions`, which are not
   * inherited): kept by a socket connection and a record being saved; a record read back from the store
   * does not have them (its encoding predates them). */
  system?: readonly TextPart[];
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

/** A finished answer as a lane hands it to the store: texts it already has, nothing re-serialised. */
export interface AnswerRecord extends StoredConversation {
  /** The turns that came from the previous response (stored as they are: the rest is derived). */
  previous: Turn[];
  /** This answer's IR parts (the last turn's); absent when the response came from a Responses upstream
   * as it is (pass-through): they are decoded from the response when read. */
  answer?: OutputPart[];
  /** The request body as decoded (the caller's text when it had no `item_reference`). */
  requestJson: string;
  /** The response as the caller got it (its text, or the bytes sent, copied as they are); absent when
   * `rendered` says how to render it again from `answer`. */
  responseJson?: string | Buffer;
  /** A translated answer: what its response needs beyond the parts and the request, which render it
   * again when read (the codec's encodeResult), byte for byte as the caller got it. */
  rendered?: RenderFacts;
  /** The ids of the response's output items (claimed for the owner, found by `item_reference`). */
  outputItemIds: string[];
}

/** What the response of a translated answer holds besides its parts and the request's echo. */
export interface RenderFacts {
  finish: Finish;
  usage: Usage;
  /** `completed_at` as the caller got it. */
  completedAt: number;
}

// Version 3: the texts one after the other, then a newline and one JSON line (the head: ids, producer,
// and each text's byte length): the earlier turns (JSON, empty when none), this answer's parts (JSON),
// the request body, the response. The head comes last so the texts are written once, straight into the
// buffer, their lengths known as they are written; it holds no raw newline, so the last one is its start.
// Texts are located by length, so the caller's own layout (newlines included) is kept as is. A version 3
// record starts with `[` (the earlier turns or the answer's parts) or `null` (no parts stored); version 2
// (two JSON lines: turns; response and input items) and version 1 (one line) start with `{` and still read.
const VERSION = 3;
// Version 4 (translated answers): the same layout without the response text; the head adds the
// response's finish, usage and completed_at. A gateway of version 3 only reads it as absent.
const VERSION_4 = 4;
const VERSION_2 = 2;
const NEWLINE = 10;
const OPEN_BRACE = 0x7b;

interface HeadV3 {
  v: 3;
  id: string;
  owner: string;
  created_at: number;
  producer?: Producer;
  /** UTF-8 byte lengths of the earlier turns, the answer, the request and the response. */
  n: [number, number, number, number];
}

interface HeadV4 {
  v: 4;
  id: string;
  owner: string;
  created_at: number;
  completed_at: number;
  finish: Finish;
  usage: Usage;
  producer?: Producer;
  /** UTF-8 byte lengths of the earlier turns, the answer and the request. */
  n: [number, number, number];
}

export function encodeAnswerRecord(record: AnswerRecord): Buffer {
  const previous = record.previous.length > 0 ? JSON.stringify(record.previous) : '';
  const { rendered, answer } = record;
  if (rendered !== undefined && answer !== undefined) {
    return writeTexts([previous, JSON.stringify(answer), record.requestJson], (n) =>
      JSON.stringify({
        v: VERSION_4,
        id: record.id,
        owner: record.owner,
        created_at: record.createdAt,
        completed_at: rendered.completedAt,
        finish: rendered.finish,
        usage: rendered.usage,
        producer: record.producer,
        n: n as HeadV4['n'],
      } satisfies HeadV4),
    );
  }
  if (record.responseJson === undefined) throw new Error(`stored response ${record.id}: neither its text nor its parts to render it`);
  return writeTexts([previous, answer === undefined ? 'null' : JSON.stringify(answer), record.requestJson, record.responseJson], (n) =>
    JSON.stringify({ v: VERSION, id: record.id, owner: record.owner, created_at: record.createdAt, producer: record.producer, n: n as HeadV3['n'] } satisfies HeadV3),
  );
}

/** Version 2's encoding (tests write records of the earlier layout with it). */
export function encodeStoredResponseV2(record: StoredResponse): Buffer {
  const head = JSON.stringify({ v: VERSION_2, id: record.id, owner: record.owner, created_at: record.createdAt, producer: record.producer, turns: record.turns });
  return joinUtf8([head, '\n{"response":', record.responseJson ?? JSON.stringify(record.response), ',"input_items":', JSON.stringify(record.inputItems), '}']);
}

// Encoded records are cut from shared slabs (as node's Buffer pool does for small buffers): a record
// of its own ArrayBuffer cost an allocation, external-memory accounting and a free on the GC's sweeper
// thread per save. A slab lives while any record cut from it does; the memory backend evicts in
// written order, so a slab's records go at about the same time.
const SLAB_BYTES = 256 * 1024;
let slab = Buffer.allocUnsafeSlow(0);
let slabAt = 0;

/** The strings' UTF-8 bytes (and the buffers' bytes), one after the other, in one buffer (a slice of a slab when small). */
export function joinUtf8(parts: readonly (string | Buffer)[]): Buffer {
  let size = 0;
  for (const p of parts) size += typeof p === 'string' ? Buffer.byteLength(p, 'utf8') : p.length;
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
  for (const p of parts) at += typeof p === 'string' ? buf.write(p, at, 'utf8') : p.copy(buf, at);
  return buf;
}

/** At most this many UTF-8 bytes per UTF-16 code unit. */
const MAX_UTF8_PER_UNIT = 3;

/**
 * The texts' UTF-8 bytes one after the other, then a newline and `head(their byte lengths)`, in one
 * buffer. Each text is written once, in one pass: room for the worst case is set aside in the slab and
 * only what was written is kept (no byteLength pass first). Large records get a buffer of their own.
 */
function writeTexts(texts: (string | Buffer)[], head: (lengths: number[]) => string): Buffer {
  let room = 0;
  for (const t of texts) room += typeof t === 'string' ? t.length * MAX_UTF8_PER_UNIT : t.length;
  // The head is small (ids, a producer, four numbers); it is checked once written.
  room += 1024 * MAX_UTF8_PER_UNIT;
  if (room > SLAB_BYTES / 4) {
    const n = texts.map((t) => (typeof t === 'string' ? Buffer.byteLength(t, 'utf8') : t.length));
    return joinUtf8([...texts, '\n' + head(n)]);
  }
  if (slab.length - slabAt < room) {
    slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
    slabAt = 0;
  }
  let at = slabAt;
  const n = texts.map((t) => {
    // Bytes (what the caller was sent) are copied as they are: no second encoding.
    const written = typeof t === 'string' ? slab.write(t, at, 'utf8') : t.copy(slab, at);
    at += written;
    return written;
  });
  const tail = '\n' + head(n);
  if (tail.length * MAX_UTF8_PER_UNIT > slabAt + room - at) return joinUtf8([...texts, tail]);
  at += slab.write(tail, at, 'utf8');
  const buf = slab.subarray(slabAt, at);
  slabAt = (at + 7) & ~7;
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

/** A version 3 or 4 record's texts, located (nothing parsed but the head). */
interface Sections {
  head: HeadV3 | HeadV4;
  buf: Buffer;
  /** Start of each text (the earlier turns, the answer, the request, the response in version 3), then the end. */
  at: number[];
}

/** A version 3 or 4 record: its head (the last line) and where its texts start; undefined for another version. */
function sectionsOf(buf: Buffer): Sections | undefined {
  const nl = buf.lastIndexOf(NEWLINE);
  const head = JSON.parse(buf.toString('utf8', nl + 1)) as HeadV3 | HeadV4;
  if (head.v !== VERSION && head.v !== VERSION_4) return undefined;
  const at = [0];
  for (const n of head.n) at.push(at[at.length - 1]! + n);
  return { head, buf, at };
}

function text(s: Sections, k: 0 | 1 | 2 | 3): string {
  return s.buf.toString('utf8', s.at[k], s.at[k + 1]);
}

/** The whole conversation: the earlier turns, this request's (decoded again from its body), the answer.
 * (A version 4 record always has its parts: its response text, which it lacks, is never read here.) */
function turnsOf(s: Sections): Turn[] {
  const previous = s.at[1] > s.at[0] ? (JSON.parse(text(s, 0)) as Turn[]) : [];
  return conversationTurns(previous, text(s, 2), JSON.parse(text(s, 1)) as OutputPart[] | null, () => text(s, 3));
}

/**
 * A record's conversation from its texts (a stored record, or one still being saved): the earlier
 * turns, the request's turns decoded again from its body, and the answer: its parts, or (none kept: a
 * Responses upstream's response as it is) decoded from the response as the pass-through lane did.
 */
export function conversationTurns(previous: Turn[], requestJson: string, parts: OutputPart[] | null, responseJson: () => string): Turn[] {
  return conversationOfTexts(previous, [], requestJson, parts, responseJson).turns;
}

/** conversationTurns, and the system/developer input messages: the earlier ones, then the request's. */
export function conversationOfTexts(
  previous: Turn[],
  previousSystem: readonly TextPart[],
  requestJson: string,
  parts: OutputPart[] | null,
  responseJson: () => string,
): { turns: Turn[]; system: TextPart[] } {
  // Its media URLs passed the door when it was stored; each attempt checks them again for its target.
  const request = decodeRequest(JSON.parse(requestJson), [], ALREADY_CHECKED);
  const answer = parts ?? decodeResponsesResult(JSON.parse(responseJson()), request).content;
  return { turns: [...previous, ...request.turns, { role: 'assistant', parts: answer }], system: [...previousSystem, ...inputSystemParts(request)] };
}

/** Generated input item ids are derived from the response id and the item's place: the same on every read. */
function derivedItemId(responseId: string): (type: string | undefined, index: number) => string {
  return (type, index) =>
    (type === undefined || type === 'message' ? 'msg_' : 'item_') +
    createHash('sha256')
      .update(responseId + '\0' + index)
      .digest('hex')
      .slice(0, 24);
}

function headOf(s: Sections): StoredConversation {
  const h = s.head;
  return { id: h.id, owner: h.owner, createdAt: h.created_at, turns: [], producer: h.producer };
}

/** The conversation only (no response, no input items): what `previous_response_id` needs. */
export function decodeStoredConversation(bytes: Uint8Array): StoredConversation | undefined {
  const buf = asBuffer(bytes);
  if (buf[0] !== OPEN_BRACE) {
    const s = sectionsOf(buf);
    if (s === undefined) return undefined;
    try {
      return { ...headOf(s), turns: turnsOf(s) };
    } catch (err) {
      // A stored body the codec no longer accepts (its rules changed since): unreadable, as a newer version's.
      if (err instanceof GatewayError) return undefined;
      throw err;
    }
  }
  const nl = buf.indexOf(NEWLINE);
  if (nl < 0) return decodeVersion1(buf);
  const head = JSON.parse(buf.toString('utf8', 0, nl)) as Head;
  // A record from a newer gateway we cannot read is treated as absent rather than misread.
  return head.v === VERSION_2 ? conversationOf(head) : undefined;
}

/** The stored response whole; the conversation and the input items are derived when first read. */
export function decodeStoredResponse(bytes: Uint8Array): StoredResponse | undefined {
  const buf = asBuffer(bytes);
  if (buf[0] !== OPEN_BRACE) {
    const s = sectionsOf(buf);
    if (s === undefined) return undefined;
    try {
      return lazyResponse(s);
    } catch (err) {
      // Version 4 renders its response from the stored body: one the codec no longer accepts is absent.
      if (err instanceof GatewayError) return undefined;
      throw err;
    }
  }
  const nl = buf.indexOf(NEWLINE);
  if (nl < 0) return decodeVersion1(buf);
  const head = JSON.parse(buf.toString('utf8', 0, nl)) as Head;
  if (head.v !== VERSION_2) return undefined;
  const body = JSON.parse(buf.toString('utf8', nl + 1)) as Body;
  return { ...conversationOf(head), response: body.response, inputItems: body.input_items };
}

/** The response object and who produced it, without deriving the conversation (GET, DELETE, item_reference). */
function lazyResponse(s: Sections): StoredResponse {
  const responseText = s.head.v === VERSION_4 ? renderResponse(s, s.head) : text(s, 3);
  const record = { ...headOf(s), response: JSON.parse(responseText) as StoredResponse['response'], inputItems: [] as WireItem[] };
  let turns: Turn[] | undefined;
  let items: WireItem[] | undefined;
  Object.defineProperties(record, {
    turns: { enumerable: true, get: () => (turns ??= turnsOf(s)) },
    inputItems: { enumerable: true, get: () => (items ??= inputItemsOf((JSON.parse(text(s, 2)) as { input?: unknown }).input, derivedItemId(s.head.id))) },
  });
  return record;
}

/**
 * A translated answer's response, rendered again as the stream's terminal frame or the body rendered it:
 * the same codec, the request decoded again from its body (the echoed fields), the stored parts,
 * finish, usage and completed_at.
 */
function renderResponse(s: Sections, head: HeadV4): string {
  const request = decodeRequest(JSON.parse(text(s, 2)), [], ALREADY_CHECKED);
  const content = JSON.parse(text(s, 1)) as OutputPart[];
  const result = { id: head.id, model: request.model, content, finish: head.finish, usage: head.usage };
  return encodeResult(result, { request, responseId: head.id, createdAt: head.created_at, warnings: [], completedAt: head.completed_at });
}

/** Records written before the two-line layout (one JSON object). */
function decodeVersion1(buf: Buffer): StoredResponse | undefined {
  const raw = JSON.parse(buf.toString('utf8')) as Head & Body;
  if (raw.v !== 1) return undefined;
  return { ...conversationOf(raw), response: raw.response, inputItems: raw.input_items };
}
