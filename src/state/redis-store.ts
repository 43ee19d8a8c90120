// The `redis` backend: several gateway instances share one Redis (≥ 6). Every mutation is one Lua
// script (redis-scripts.ts), so limits are exact across instances; the clock is the server's TIME.
// Every call is bounded (commandTimeout); while Redis is away calls reject with
// StateUnavailableError instead of queueing, and ioredis reconnects in the background.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Cluster, Redis } from 'ioredis';
import { bucketMs, newLeaseId } from './admission-logic.js';
import { CLAIM, DELETE_DOC, LIMITS, PUT_DOC } from './redis-scripts.js';
import { clusterSeeds, isClusterUrl, redactUrl } from './redis-url.js';
import { documentBytes, namespaceBounds, ownerBounds, tooLarge, type StoreOptions } from './options.js';
import { StateUnavailableError, type AdmissionCheck, type AdmissionResult, type Charge, type CheckState, type Lease, type StateStore } from './types.js';

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
const SCRIPTS = { putDoc: script(PUT_DOC), deleteDoc: script(DELETE_DOC), claim: script(CLAIM), limits: script(LIMITS) };

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
    this.client = this.connect();
  }

  private connect(): Redis | Cluster {
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
        clusterRetryStrategy: (times: number) => Math.min(100 * times, 1000),
        redisOptions: { ...common, username: seeds.username, password: seeds.password, ...(seeds.tls ? { tls: {} } : {}) },
      });
    } else {
      client = new RedisClient(this.options.url, { ...common, enableAutoPipelining: true });
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
      return await fn();
    } catch (err) {
      throw this.unavailable(op, err);
    }
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
  ): Promise<LimitReply> {
    return new Promise((resolve, reject) => {
      this.queued.push({ op, kind, sig: sig ?? fields + '\n' + keys.join('\n'), keys, fields, fieldCount, values, replyLength, resolve, reject });
      if (!this.flushSoon) {
        this.flushSoon = true;
        setImmediate(this.flushNow);
      }
    });
  }

  private flushQueued(): void {
    const batch = this.queued;
    if (batch.length === 0 || this.inFlight >= MAX_IN_FLIGHT) return;
    this.queued = [];
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
    this.evalScript(SCRIPTS.limits, numKeys, args, true).then(
      (raw) => {
        this.inFlight--;
        if (this.queued.length > 0 && !this.flushSoon) this.flushQueued();
        // The calls' replies one after the other; a failed call's is one "!<error>" string.
        const replies = raw as (number | string)[];
        let at = 0;
        for (let i = 0; i < batch.length; i++) {
          const c = batch[i]!;
          const r = replies[at];
          if (typeof r === 'string' && r.charCodeAt(0) === 33 /* ! */) {
            at++;
            c.reject(this.unavailable(c.op, new Error(r.slice(1))));
          } else if (at + c.replyLength > replies.length) {
            at = replies.length;
            c.reject(this.unavailable(c.op, new Error('no reply for this call')));
          } else {
            c.resolve(replies.slice(at, (at += c.replyLength)));
          }
        }
      },
      (err: unknown) => {
        this.inFlight--;
        if (this.queued.length > 0 && !this.flushSoon) this.flushQueued();
        for (const c of batch) c.reject(this.unavailable(c.op, err));
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
    const t = await this.limitCall(op, charge ? 'a' : 'i', shape.keys, shape.fields, shape.count, values, 3 + 2 * checks.length, shape.sig);
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

  async publish(channel: string, message: string): Promise<void> {
    await this.run('publish', () => this.client.publish(this.prefix + 'ch:' + channel, message));
  }

  subscribe(channel: string, onMessage: (message: string) => void): () => void {
    const full = this.prefix + 'ch:' + channel;
    if (!this.subscriber) {
      // A connection in subscriber mode can do nothing else; it resubscribes by itself after a reconnect.
      const sub = this.connect();
      sub.on('message', (ch: string, message: string) => {
        for (const fn of this.handlers.get(ch) ?? []) fn(message);
      });
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

  async ping(): Promise<void> {
    await this.run('ping', () => this.client.ping());
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
