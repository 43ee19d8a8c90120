// The `redis` backend: several gateway instances share one Redis (≥ 6). Every mutation is one Lua
// script (redis-scripts.ts), so limits are exact across instances; the clock is the server's TIME.
// Every call is bounded by the store's own timer (op_timeout_ms, whatever the client does meanwhile;
// commandTimeout and connectTimeout as well); while Redis is away calls reject with StateUnavailableError
// instead of queueing, and ioredis reconnects in the background. On a Redis Cluster the client has no
// offline queue (ioredis's has no timeout): a call made while it is not ready waits here for 'ready',
// within its bound, and is never sent once it has failed.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Cluster, Redis } from 'ioredis';
import { bucketMs, newLeaseId } from './admission-logic.js';
import { CLAIM, DELETE_DOC, LIMITS, PUT_DOC, READ_RECORD_CHANGES, WRITE_RECORDS } from './redis-scripts.js';
import { clusterSeeds, isClusterUrl, redactUrl } from './redis-url.js';
import { documentBytes, namespaceBounds, ownerBounds, tooLarge, type StoreOptions } from './options.js';
import {
  AUDIT_KEEP,
  RECORD_CHANGES_KEEP,
  StateUnavailableError,
  type AdmissionCheck,
  type AdmissionResult,
  type Charge,
  type CheckState,
  type Lease,
  type RecordChanges,
  type RecordSnapshot,
  type RecordWrite,
  type RecordWriteResult,
  type StateStore,
} from './types.js';

export interface RedisStoreOptions extends StoreOptions {
  /** redis[s]://… for one server; redis[s]+cluster://host:port[,host:port…] for a Redis Cluster (its seed nodes). */
  url: string;
  keyPrefix?: string;
  /** Upper bound of any one call, connection set-up included. */
  opTimeoutMs?: number;
}

/** A Lua script and its SHA1, sent as EVALSHA (the script text only after a NOSCRIPT). */
interface Script {
  lua: string;
  sha: string;
}
const script = (lua: string): Script => ({ lua, sha: createHash('sha1').update(lua).digest('hex') });
const SCRIPTS = { putDoc: script(PUT_DOC), deleteDoc: script(DELETE_DOC), claim: script(CLAIM), limits: script(LIMITS), writeRecords: script(WRITE_RECORDS), readRecordChanges: script(READ_RECORD_CHANGES) };

/** One admit, inspect, charge or counter read waiting for (or travelling in) a LIMITS script call. */
interface LimitCall {
  /** For errors: admit, inspect, charge, release, read_counters. */
  op: string;
  /** The shape (redis-scripts.ts LIMIT_CALLS): the op, its keys and the fields that do not vary per
   * request; calls of one batch with the same shape send it once. */
  kind: 'a' | 'i' | 'c' | 'g';
  /** Fields and keys as one string: what identifies the shape within a kind. */
  sig: string;
  keys: string[];
  /** Its fields as JSON array entries, each after a comma, and how many. */
  fields: string;
  fieldCount: number;
  /** The call's own values (lease ids, amounts) as JSON array entries, each after a comma. */
  values: string;
  /** Entries of its reply, when it succeeds (the script's replies come one after the other in one array). */
  replyLength: number;
  resolve: (reply: LimitReply) => void;
  reject: (err: unknown) => void;
  /** Its deadline passed (rejected already): not sent if still queued; a late reply goes to `late`. */
  expired: boolean;
  /** A reply that came after the call's deadline (an admission's leases to give back). */
  late?: (reply: LimitReply) => void;
}
/** A limit call's reply: an admission's or inspection's states, counters' values, or [1] for a charge. */
type LimitReply = (number | string)[];
/** A number as a JSON array entry; Infinity or NaN (never valid limits or amounts) as a string, so a
 * bad value fails its own call in the script rather than the JSON of the whole batch. */
const json = (x: number): string => (Number.isFinite(x) ? String(x) : `"${x}"`);
/** A list of checks as a LIMITS call shape. */
interface ChecksShape {
  keys: string[];
  fields: string;
  count: number;
  sig: string;
}

/**
 * Script calls in flight before further limit calls wait for one to return. Calls made in one
 * event-loop turn already travel together (flushQueued); this bounds the turns outstanding.
 */
const MAX_IN_FLIGHT = 64;

/** Calls waiting for a Redis Cluster client to become ready, at most (each for op_timeout_ms at most). */
const MAX_WAITING_FOR_READY = 10_000;

export class RedisStateStore implements StateStore {
  readonly backend = 'redis' as const;
  private readonly client: Redis | Cluster;
  private subscriber: Redis | Cluster | undefined;
  /** On a Redis Cluster, keys carry hash tags (keyOf) so every script's keys share one slot. */
  private readonly cluster: boolean;
  private readonly handlers = new Map<string, Set<(m: string) => void>>();
  private readonly prefix: string;
  private readonly boundOf: (ns: string) => number;
  private readonly ownerBoundOf: (ns: string) => number;
  private readonly where: string;
  private readonly opTimeoutMs: number;
  private lastError: string | undefined;
  /** Limit calls waiting to go, in the order made: they go together in the next script call. */
  private queued: LimitCall[] = [];
  private inFlight = 0;
  private readonly shapes = new WeakMap<readonly AdmissionCheck[], ChecksShape>();
  /** Calls waiting for the cluster client's 'ready' (cluster only). */
  private readonly readyWaiters = new Set<() => void>();
  /** A flush is scheduled for the end of this event-loop turn (setImmediate). */
  private flushSoon = false;
  private readonly flushNow = (): void => {
    this.flushSoon = false;
    this.flushQueued();
  };
  /** ioredis's Command, for limit calls sent without its auto-pipelining (see flushQueued). */
  private Command!: typeof import('ioredis').Command;

  constructor(private readonly options: RedisStoreOptions) {
    this.prefix = options.keyPrefix ?? 'switchyard:';
    this.boundOf = namespaceBounds(options);
    this.ownerBoundOf = ownerBounds(options);
    this.where = redactUrl(options.url);
    this.opTimeoutMs = options.opTimeoutMs ?? 1500;
    this.cluster = isClusterUrl(options.url);
    this.client = this.connect(false);
    if (this.cluster) {
      this.client.on('ready', () => {
        const waiters = [...this.readyWaiters];
        this.readyWaiters.clear();
        for (const w of waiters) w();
      });
    }
  }

  /** `subscriber`: the pub/sub connection, which keeps ioredis's offline queue on a cluster (its few
   * SUBSCRIBEs wait for the reconnect and are then resubscribed); the main client has none there. */
  private connect(subscriber: boolean): Redis | Cluster {
    // Loaded here, not at import: ioredis added ~8 MiB to the idle RSS of every gateway, whatever its
    // backend (the default is memory).
    const { Redis: RedisClient, Cluster: ClusterClient, Command } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
    this.Command = Command;
    const common = {
      lazyConnect: true,
      connectTimeout: this.opTimeoutMs,
      commandTimeout: this.opTimeoutMs,
      // Fail queued calls after one reconnect attempt rather than holding requests while Redis is away.
      maxRetriesPerRequest: 1,
      retryStrategy: (times: number) => Math.min(100 * times, 1000),
    };
    let client: Redis | Cluster;
    if (this.cluster) {
      const seeds = clusterSeeds(this.options.url);
      client = new ClusterClient(seeds.nodes, {
        lazyConnect: true,
        enableAutoPipelining: true,
        enableOfflineQueue: subscriber,
        clusterRetryStrategy: (times: number) => Math.min(100 * times, 1000),
        redisOptions: { ...common, username: seeds.username, password: seeds.password, ...(seeds.tls ? { tls: {} } : {}) },
      });
    } else {
      // The subscriber resubscribes itself (resubscribeAfterReconnect): ioredis's own resubscription
      // holds no handler on its SUBSCRIBE, so one unanswered within commandTimeout, or cut by close(),
      // was an unhandled rejection (which ends a Node process).
      client = new RedisClient(this.options.url, { ...common, enableAutoPipelining: true, ...(subscriber ? { autoResubscribe: false } : {}) });
    }
    // Without a listener ioredis prints every failed reconnect; the error surfaces through the calls.
    client.on('error', (err: Error) => {
      this.lastError = err.message;
    });
    client.on('ready', () => {
      this.lastError = undefined;
    });
    return client;
  }

  /**
   * EVALSHA, falling back to EVAL (which also caches the script) after a NOSCRIPT. Not ioredis's
   * defineCommand: with auto-pipelining its "already loaded on this socket" check never matches, so
   * every call sent the whole script text as EVAL and Redis hashed it again (measured: over a third
   * of the client's CPU per admit+settle in writing script text, and the server's hashing on top).
   */
  private async evalScript(s: Script, numKeys: number, args: (string | Buffer)[], direct = false): Promise<unknown> {
    // direct: written at once with sendCommand, outside ioredis's auto-pipelining, which would wait
    // another turn (setImmediate) for a call that is already the turn's whole batch (flushQueued).
    const send = (cmd: 'evalsha' | 'eval', head: string): Promise<unknown> =>
      direct
        ? (this.client.sendCommand(new this.Command(cmd, [head, String(numKeys), ...args], { replyEncoding: 'utf8' })) as Promise<unknown>)
        : cmd === 'evalsha'
          ? this.client.evalsha(head, numKeys, ...args)
          : this.client.eval(head, numKeys, ...args);
    try {
      return await send('evalsha', s.sha);
    } catch (err) {
      if (!/NOSCRIPT/.test((err as Error).message)) throw err;
      return send('eval', s.lua);
    }
  }

  private async run<T>(op: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await this.within(fn);
    } catch (err) {
      throw this.unavailable(op, err);
    }
  }

  /**
   * `start()`'s answer, or a rejection at op_timeout_ms whatever the client does meanwhile (an answer
   * after that goes to `late`). On a cluster whose client is not ready, `start` runs once it is, and not
   * at all if the deadline came first.
   */
  private within<T>(start: () => Promise<T>, late?: (value: T) => void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let done = false;
      let waiter: (() => void) | undefined;
      const timer = setTimeout(() => {
        done = true;
        if (waiter) this.readyWaiters.delete(waiter);
        reject(new Error(`no answer within ${this.opTimeoutMs} ms`));
      }, this.opTimeoutMs);
      const ok = (value: T) => {
        if (done) return void late?.(value);
        done = true;
        clearTimeout(timer);
        resolve(value);
      };
      const fail = (err: unknown) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        reject(err);
      };
      const go = () => {
        waiter = undefined;
        if (!done) start().then(ok, fail);
      };
      if (!this.cluster || this.client.status === 'ready') return go();
      if (this.readyWaiters.size >= MAX_WAITING_FOR_READY) return fail(new Error('the cluster is not ready'));
      // A lazy client connects on its first call (as ioredis would, were its offline queue on).
      if (this.client.status === 'wait') this.client.connect().catch(() => undefined);
      waiter = go;
      this.readyWaiters.add(go);
    });
  }

  private unavailable(op: string, err: unknown): StateUnavailableError {
    // ioredis reports "max retries reached" for a refused connection; the connection error says why.
    const message = (err as Error).message || 'unknown error';
    const detail = this.lastError && /max retries/i.test(message) ? `cannot connect: ${this.lastError}` : message;
    const e = new StateUnavailableError(op, `state store unavailable (redis at ${this.where}, ${op}): ${detail}`, { cause: err });
    this.options.onError?.(op, e);
    return e;
  }

  /**
   * Limit calls made in one event-loop turn go together, as one LIMITS script call, at the end of
   * the turn (setImmediate: when ioredis's auto-pipelining would have written them anyway), so the
   * script's fixed cost on both sides, and its reads of a key's state, are paid once per turn rather
   * than per call. A busy gateway's turn holds several requests' admissions and the settles of the
   * answers that ended in it. Each call is still evaluated on its own, in the order made, inside the
   * script: a settle made before an inspect is seen by it. (Settles are not held back longer to wait
   * for an admission: another instance's next admission would then miss this one's last charges.)
   */
  private limitCall(
    op: string,
    kind: 'a' | 'i' | 'c' | 'g',
    keys: string[],
    fields: string,
    fieldCount: number,
    values: string,
    replyLength: number,
    sig?: string,
    late?: (reply: LimitReply) => void,
  ): Promise<LimitReply> {
    return new Promise((resolve, reject) => {
      // The call's own deadline covers its wait in the queue (MAX_IN_FLIGHT) as well as the script call.
      const timer = setTimeout(() => {
        call.expired = true;
        reject(this.unavailable(op, new Error(`no answer within ${this.opTimeoutMs} ms`)));
      }, this.opTimeoutMs);
      const call: LimitCall = {
        op,
        kind,
        sig: sig ?? fields + '\n' + keys.join('\n'),
        keys,
        fields,
        fieldCount,
        values,
        replyLength,
        expired: false,
        late,
        resolve: (reply) => {
          clearTimeout(timer);
          if (call.expired) call.late?.(reply);
          else resolve(reply);
        },
        reject: (err) => {
          clearTimeout(timer);
          if (!call.expired) reject(err);
        },
      };
      this.queued.push(call);
      if (!this.flushSoon) {
        this.flushSoon = true;
        setImmediate(this.flushNow);
      }
    });
  }

  private flushQueued(): void {
    if (this.queued.length === 0 || this.inFlight >= MAX_IN_FLIGHT) return;
    // A call past its deadline was answered already (503): it is not sent.
    const batch = this.queued.filter((c) => !c.expired);
    this.queued = [];
    if (batch.length === 0) return;
    this.inFlight++;
    // EVALSHA's arguments: the batch's keys, each once; its shapes, each once; its calls, each
    // `<shape index> <values…>` (redis-scripts.ts LIMITS; shapes and calls as JSON arrays).
    const args: string[] = [];
    const keyIndex = new Map<string, number>();
    const shapeIndex = { a: new Map<string, number>(), i: new Map<string, number>(), c: new Map<string, number>(), g: new Map<string, number>() };
    let shapeCount = 0;
    let shapes = '';
    let calls = '';
    for (const c of batch) {
      let si = shapeIndex[c.kind].get(c.sig);
      if (si === undefined) {
        si = ++shapeCount;
        shapeIndex[c.kind].set(c.sig, si);
        let head = `"${c.kind}",${c.keys.length},${c.fieldCount}`;
        for (const k of c.keys) {
          let ki = keyIndex.get(k);
          if (ki === undefined) {
            ki = args.push(k);
            keyIndex.set(k, ki);
          }
          head += ',' + ki;
        }
        shapes = shapes === '' ? head + c.fields : shapes + ',' + head + c.fields;
      }
      calls = calls === '' ? si + c.values : calls + ',' + si + c.values;
    }
    const numKeys = args.length;
    args.push('[' + shapes + ']', '[' + calls + ']');
    // The calls' replies one after the other; a failed call's is one "!<error>" string. Also for a reply
    // past the deadline: the calls are rejected already, and an admission's leases go back (LimitCall.late).
    const answer = (raw: unknown) => {
      const replies = raw as (number | string)[];
      let at = 0;
      for (let i = 0; i < batch.length; i++) {
        const c = batch[i]!;
        const r = replies[at];
        if (typeof r === 'string' && r.charCodeAt(0) === 33 /* ! */) {
          at++;
          if (!c.expired) c.reject(this.unavailable(c.op, new Error(r.slice(1))));
        } else if (at + c.replyLength > replies.length) {
          at = replies.length;
          if (!c.expired) c.reject(this.unavailable(c.op, new Error('no reply for this call')));
        } else {
          c.resolve(replies.slice(at, (at += c.replyLength)));
        }
      }
    };
    this.within(() => this.evalScript(SCRIPTS.limits, numKeys, args, true), answer).then(
      (raw) => {
        this.inFlight--;
        if (this.queued.length > 0 && !this.flushSoon) this.flushQueued();
        answer(raw);
      },
      (err: unknown) => {
        // At the deadline the slot is free again, whether or not the script still answers.
        this.inFlight--;
        if (this.queued.length > 0 && !this.flushSoon) this.flushQueued();
        for (const c of batch) if (!c.expired) c.reject(this.unavailable(c.op, err));
      },
    );
  }

  /**
   * `<prefix><kind>:<group>` on one server (the names of earlier versions); on a cluster
   * `<prefix>{<group>}:<kind>`, the group as hash tag: a namespace's documents, order, sizes and claims
   * share a slot (PUT_DOC evicts across them), and so do all limit keys (`{l}`: one admission checks a
   * key's and its team's limits atomically, and concurrent admissions go together in one script call).
   */
  private keyOf(kind: string, group: string): string {
    return this.cluster ? `${this.prefix}{${group}}:${kind}` : `${this.prefix}${kind}:${group}`;
  }

  private docKeys(ns: string, id: string): [string, string, string, string] {
    return [`${this.keyOf('d', ns)}:${id}`, this.keyOf('do', ns), this.keyOf('dm', ns), this.keyOf('ds', ns)];
  }

  async getDoc(ns: string, id: string, owner: string): Promise<Uint8Array | undefined> {
    const [owned, value] = await this.run('get', () => this.client.hmgetBuffer(this.docKeys(ns, id)[0], 'o', 'v'));
    if (!owned || !value || owned.toString() !== owner) return undefined;
    return value;
  }

  async putDoc(ns: string, id: string, owner: string, value: Uint8Array, ttlMs: number): Promise<void> {
    const max = this.boundOf(ns);
    const ownerMax = this.ownerBoundOf(ns);
    const bytes = documentBytes(id, owner, value);
    if (bytes > ownerMax) throw tooLarge(ns, bytes, ownerMax);
    const buf = Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    const keys = this.docKeys(ns, id);
    const ownerOrder = `${this.keyOf('dw', ns)}:`;
    const args = [id, owner, buf, String(bytes), String(Math.max(1, Math.round(ttlMs))), String(max), `${this.keyOf('d', ns)}:`, String(ownerMax), ownerOrder];
    await this.run('put', () => this.evalScript(SCRIPTS.putDoc, 5, [...keys, ownerOrder + owner, ...args]));
  }

  async deleteDoc(ns: string, id: string, owner: string): Promise<boolean> {
    const args = [id, owner, `${this.keyOf('d', ns)}:`, `${this.keyOf('dw', ns)}:`];
    const n = await this.run('delete', () => this.evalScript(SCRIPTS.deleteDoc, 4, [...this.docKeys(ns, id), ...args]));
    return n === 1;
  }

  async claim(ns: string, ids: readonly string[], owner: string, ttlMs: number): Promise<void> {
    if (ids.length === 0) return;
    const keys = ids.map((id) => `${this.keyOf('k', ns)}:${id}`);
    await this.run('put', () => this.evalScript(SCRIPTS.claim, keys.length, [...keys, owner, String(Math.max(1, Math.round(ttlMs)))]));
  }

  async claimOwners(ns: string, ids: readonly string[]): Promise<(string | undefined)[]> {
    if (ids.length === 0) return [];
    const owners = await this.run('get', () => this.client.mget(...ids.map((id) => `${this.keyOf('k', ns)}:${id}`)));
    return owners.map((o) => o ?? undefined);
  }

  private limitKey(kind: 'window' | 'counter' | 'concurrency', key: string): string {
    // Windows are packed strings under `wp:` (they were hashes under `w:`, which simply expire).
    const k = kind === 'window' ? 'wp' : kind === 'counter' ? 'c' : 'l';
    return this.cluster ? `${this.prefix}{l}:${k}:${key}` : `${this.prefix}${k}:${key}`;
  }

  /** The keys and fields of a list of checks (the same for every request of a caller: access keeps its
   * plan, so the encoding is kept by the list's identity). */
  private checksShape(checks: readonly AdmissionCheck[]): ChecksShape {
    let shape = this.shapes.get(checks);
    if (shape !== undefined) return shape;
    const keys: string[] = [];
    let fields = '';
    let count = 0;
    for (const c of checks) {
      keys.push(this.limitKey(c.kind, c.key));
      if (c.kind === 'window') {
        fields += `,"w",${json(c.windowMs)},${json(bucketMs(c.windowMs))},${json(c.limit)},${json(c.cost)}`;
        count += 5;
      } else if (c.kind === 'counter') {
        fields += `,"c",${json(c.limit)}`;
        count += 2;
      } else {
        fields += `,"l",${json(c.limit)},${json(c.leaseMs)}`;
        count += 3;
      }
    }
    shape = { keys, fields, count, sig: fields + '\n' + keys.join('\n') };
    this.shapes.set(checks, shape);
    return shape;
  }

  private async runAdmit(op: string, checks: readonly AdmissionCheck[], charge: boolean): Promise<AdmissionResult> {
    const shape = this.checksShape(checks);
    const leases: Lease[] = [];
    let values = '';
    if (charge) {
      for (const c of checks) {
        if (c.kind !== 'concurrency') continue;
        // Ids are [A-Za-z0-9_.-]: a JSON string as they are.
        const id = newLeaseId();
        leases.push({ key: c.key, id });
        values += ',"' + id + '"';
      }
    }
    // [ok, failed, retry, used, reset, …]
    // An admission answered after its deadline (the caller has its 503) gives its leases back.
    const late = leases.length > 0 ? (r: LimitReply) => void (r[0] === 1 && this.release(leases).catch(() => undefined)) : undefined;
    const t = await this.limitCall(op, charge ? 'a' : 'i', shape.keys, shape.fields, shape.count, values, 3 + 2 * checks.length, shape.sig, late);
    const states: CheckState[] = new Array(checks.length);
    for (let i = 0; i < checks.length; i++) states[i] = { used: Number(t[3 + 2 * i]), limit: checks[i]!.limit, resetMs: Number(t[4 + 2 * i]) };
    return t[0] === 1 ? { ok: true, states, leases } : { ok: false, states, failed: Number(t[1]), retryAfterMs: Number(t[2]) };
  }

  admit(checks: readonly AdmissionCheck[]): Promise<AdmissionResult> {
    return this.runAdmit('admit', checks, true);
  }

  async inspect(checks: readonly AdmissionCheck[]): Promise<CheckState[]> {
    return (await this.runAdmit('inspect', checks, false)).states;
  }

  async charge(charges: readonly Charge[]): Promise<void> {
    if (charges.length === 0) return;
    await this.chargeCall('charge', charges, []);
  }

  /** A charge call: lease releases first, then the charges. A fractional counter amount travels as the
   * caller's decimal, so INCRBYFLOAT sees it rather than a re-printed double. */
  private chargeCall(op: string, charges: readonly Charge[], leases: readonly Lease[]): Promise<LimitReply> {
    const keys: string[] = [];
    let fields = '';
    let count = 0;
    let values = '';
    for (const l of leases) {
      keys.push(this.limitKey('concurrency', l.key));
      fields += ',"r"';
      count += 1;
      values += ',"' + l.id + '"';
    }
    for (const c of charges) {
      keys.push(this.limitKey(c.kind, c.key));
      if (c.kind === 'window') {
        fields += `,"w",${json(c.windowMs)},${json(bucketMs(c.windowMs))}`;
        count += 3;
        values += ',' + json(c.amount);
      } else {
        fields += ',"c"';
        count += 1;
        // A fractional amount as a JSON string: its digits are the caller's decimal, which INCRBYFLOAT then sees.
        values += (Number.isInteger(c.amount) ? ',' + c.amount : ',"' + c.amount + '"') + ',' + json(Math.max(1, Math.round(c.ttlMs)));
      }
    }
    return this.limitCall(op, 'c', keys, fields, count, values, 1);
  }

  async release(leases: readonly Lease[]): Promise<void> {
    if (leases.length === 0) return;
    await this.chargeCall('release', [], leases);
  }

  /** Releases first, then the charges, in one limit call (with the other calls of this turn). */
  async settle(charges: readonly Charge[], leases: readonly Lease[]): Promise<void> {
    if (charges.length === 0 && leases.length === 0) return;
    await this.chargeCall('charge', charges, leases);
  }

  /** In the limit calls' order (a LIMITS call, not an MGET), so a settle made before is counted. */
  async readCounters(keys: readonly string[]): Promise<number[]> {
    if (keys.length === 0) return [];
    const reply = await this.limitCall('read_counters', 'g', keys.map((k) => this.limitKey('counter', k)), '', 0, '', keys.length);
    return reply.map(Number);
  }

  /** Records: one hash, its version, the audit list and the change list, all in the `reg` group (one
   * slot on a cluster). */
  private recordKeys(): [string, string, string, string] {
    return [this.keyOf('r', 'reg'), this.keyOf('rv', 'reg'), this.keyOf('ra', 'reg'), this.keyOf('rc', 'reg')];
  }

  async readRecords(): Promise<RecordSnapshot> {
    const [hash, version] = this.recordKeys();
    // MULTI: the version and the records of one moment.
    const replies = await this.run('records', async () => {
      const r = (await this.client.multi().get(version).hgetall(hash).exec()) ?? [];
      for (const [err] of r) if (err) throw err;
      return r;
    });
    const v = Number(replies[0]?.[1] ?? 0);
    const all = (replies[1]?.[1] ?? {}) as Record<string, string>;
    return { version: v, records: new Map(Object.entries(all)) };
  }

  async recordsVersion(): Promise<number> {
    return Number((await this.run('records', () => this.client.get(this.recordKeys()[1]))) ?? 0);
  }

  async readRecordChanges(since: number): Promise<RecordChanges | undefined> {
    const [hash, version, , changes] = this.recordKeys();
    const reply = (await this.run('records', () => this.evalScript(SCRIPTS.readRecordChanges, 3, [hash, version, changes, String(since), String(RECORD_CHANGES_KEEP)]))) as (number | string | null)[];
    if (reply[1] !== 1) return undefined;
    const out = new Map<string, string | null>();
    for (let i = 2; i < reply.length; i += 2) out.set(String(reply[i]), typeof reply[i + 1] === 'string' ? (reply[i + 1] as string) : null);
    return { version: Number(reply[0]), changes: out };
  }

  async writeRecords(writes: readonly RecordWrite[], audit: string): Promise<RecordWriteResult> {
    const args: string[] = [audit, String(AUDIT_KEEP), String(RECORD_CHANGES_KEEP)];
    for (const w of writes) {
      const mode = w.expect === undefined ? 'any' : w.expect === null ? 'absent' : 'equal';
      args.push(w.id, w.value === null ? 'del' : 'put', w.value ?? '', mode, w.expect ?? '');
    }
    const reply = (await this.run('records', () => this.evalScript(SCRIPTS.writeRecords, 4, [...this.recordKeys(), ...args]))) as [number, number, string | null];
    if (reply[0] === 1) return { ok: true, version: Number(reply[1]) };
    return { ok: false, failed: Number(reply[1]), current: typeof reply[2] === 'string' ? reply[2] : null };
  }

  async readAudit(limit: number): Promise<string[]> {
    if (limit <= 0) return [];
    return this.run('records', () => this.client.lrange(this.recordKeys()[2], 0, limit - 1));
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.run('publish', () => this.client.publish(this.prefix + 'ch:' + channel, message));
  }

  subscribe(channel: string, onMessage: (message: string) => void): () => void {
    const full = this.prefix + 'ch:' + channel;
    if (!this.subscriber) {
      // A connection in subscriber mode can do nothing else; it resubscribes by itself after a reconnect.
      const sub = this.connect(true);
      sub.on('message', (ch: string, message: string) => {
        for (const fn of this.handlers.get(ch) ?? []) fn(message);
      });
      if (!this.cluster) this.resubscribeAfterReconnect(sub as Redis);
      this.subscriber = sub;
    }
    let set = this.handlers.get(full);
    if (!set) {
      this.handlers.set(full, (set = new Set()));
      this.subscriber.subscribe(full).catch(() => {
        // Retried by ioredis on reconnect (autoResubscribe); a lost broadcast is tolerated by contract.
      });
    }
    const fn = (m: string) => onMessage(m);
    set.add(fn);
    return () => {
      set.delete(fn);
      if (set.size === 0) {
        this.handlers.delete(full);
        this.subscriber?.unsubscribe(full).catch(() => {});
      }
    };
  }

  /**
   * After a lost connection, subscribes again to every channel with a handler, each SUBSCRIBE's failure
   * handled (the next reconnect tries again; a lost broadcast is tolerated by contract). The first
   * connection's SUBSCRIBEs wait in ioredis's offline queue instead.
   */
  private resubscribeAfterReconnect(sub: Redis): void {
    let lost = false;
    sub.on('close', () => {
      lost = true;
    });
    sub.on('ready', () => {
      if (!lost) return;
      lost = false;
      const channels = [...this.handlers.keys()];
      if (channels.length > 0) sub.subscribe(...channels).catch(() => undefined);
    });
  }

  /** On a cluster, the slots the requests use (the limits' `{l}`, each namespace's), not any one node. */
  async ping(): Promise<void> {
    if (!this.cluster) return void (await this.run('ping', () => this.client.ping()));
    const probes = [this.limitKey('concurrency', 'ping'), ...(this.options.namespaces ?? []).map((n) => this.keyOf('ping', n.name))];
    await this.run('ping', () => Promise.all(probes.map((k) => this.client.exists(k))));
  }

  async close(): Promise<void> {
    // Calls still waiting for the end of this turn (the last settles) go now, before the connection closes.
    if (this.queued.length > 0) {
      const pending = this.queued.map((c) => new Promise<void>((resolve) => {
        const { resolve: ok, reject: fail } = c;
        c.resolve = (r) => (ok(r), resolve());
        c.reject = (e) => (fail(e), resolve());
      }));
      this.flushQueued();
      await Promise.all(pending);
    }
    this.handlers.clear();
    const all = [this.client, this.subscriber].filter((c): c is Redis | Cluster => c !== undefined);
    await Promise.all(
      all.map(async (c) => {
        // QUIT only on a live connection (bounded); a lazy or broken one would otherwise connect or wait first.
        if (c.status === 'ready') {
          let timer: NodeJS.Timeout | undefined;
          const bound = new Promise<void>((r) => (timer = setTimeout(r, this.opTimeoutMs)));
          await Promise.race([c.quit().catch(() => {}), bound]);
          clearTimeout(timer);
        }
        c.disconnect();
      }),
    );
  }
}
