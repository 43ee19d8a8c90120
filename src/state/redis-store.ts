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

/** One admit, inspect or charge waiting for (or travelling in) a LIMITS script call. */
interface LimitCall {
  op: string;
  keys: string[];
  wire: { o: 'a' | 'i' | 'c'; n: number; c: unknown[] };
  resolve: (result: unknown) => void;
  reject: (err: unknown) => void;
}
/**
 * Script calls in flight before further limit calls wait and go together. Measured with
 * bench/access-overhead.ts (saturation drop against no limits, 64 connections): 1 in flight 32–34 %,
 * 4 in flight 23–26 %, 64 in flight 21 %: a single batch in flight made each call wait for the one
 * ahead of it as well as its own.
 */
const MAX_IN_FLIGHT = 64;
type AdmitReply = { ok: boolean; s: [number, number, number][] | Record<string, never>; f: number; r: number };


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
  /** Limit calls waiting for a free slot (MAX_IN_FLIGHT): they go together in the next script call. */
  private queued: LimitCall[] = [];
  private inFlight = 0;

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
    const { Redis: RedisClient, Cluster: ClusterClient } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
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
  private async evalScript(s: Script, numKeys: number, args: (string | Buffer)[]): Promise<unknown> {
    try {
      return await this.client.evalsha(s.sha, numKeys, ...args);
    } catch (err) {
      if (!/NOSCRIPT/.test((err as Error).message)) throw err;
      return this.client.eval(s.lua, numKeys, ...args);
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
   * Limit calls go out at once while fewer than MAX_IN_FLIGHT script calls travel (no added latency
   * when traffic is light); beyond that, the ones made meanwhile are sent together, as one LIMITS
   * call, when one returns. Each call is still evaluated on its own, in order, inside the script.
   */
  private limitCall(op: string, keys: string[], wire: LimitCall['wire']): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.queued.push({ op, keys, wire, resolve, reject });
      if (this.inFlight < MAX_IN_FLIGHT) this.sendQueued();
    });
  }

  private sendQueued(): void {
    const batch = this.queued;
    if (batch.length === 0) return;
    this.queued = [];
    this.inFlight++;
    const keys = batch.length === 1 ? batch[0]!.keys : batch.flatMap((c) => c.keys);
    const json = JSON.stringify(batch.map((c) => c.wire));
    this.evalScript(SCRIPTS.limits, keys.length, [...keys, json]).then(
      (raw) => {
        this.inFlight--;
        this.sendQueued();
        let results: unknown[];
        try {
          results = JSON.parse(raw as string) as unknown[];
        } catch (err) {
          for (const c of batch) c.reject(this.unavailable(c.op, err));
          return;
        }
        for (let i = 0; i < batch.length; i++) batch[i]!.resolve(results[i]);
      },
      (err: unknown) => {
        this.inFlight--;
        this.sendQueued();
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

  private checkArgs(checks: readonly AdmissionCheck[]): { wire: unknown[]; leases: Lease[] } {
    const leases: Lease[] = [];
    const wire = checks.map((c) => {
      switch (c.kind) {
        case 'window':
          return { k: 'w', w: c.windowMs, b: bucketMs(c.windowMs), l: c.limit, c: c.cost };
        case 'counter':
          return { k: 'c', l: c.limit };
        case 'concurrency': {
          const id = newLeaseId();
          leases.push({ key: c.key, id });
          return { k: 'l', l: c.limit, m: c.leaseMs, id };
        }
      }
    });
    return { wire, leases };
  }

  private limitKey(kind: 'window' | 'counter' | 'concurrency', key: string): string {
    // Windows are packed strings under `wp:` (they were hashes under `w:`, which simply expire).
    const k = kind === 'window' ? 'wp' : kind === 'counter' ? 'c' : 'l';
    return this.cluster ? `${this.prefix}{l}:${k}:${key}` : `${this.prefix}${k}:${key}`;
  }

  private async runAdmit(op: string, checks: readonly AdmissionCheck[], charge: boolean): Promise<AdmissionResult> {
    const { wire, leases } = this.checkArgs(checks);
    const keys = checks.map((c) => this.limitKey(c.kind, c.key));
    const r = (await this.limitCall(op, keys, { o: charge ? 'a' : 'i', n: keys.length, c: wire })) as AdmitReply;
    const states: CheckState[] = (Array.isArray(r.s) ? r.s : []).map(([used, limit, resetMs]) => ({ used, limit, resetMs }));
    return r.ok ? { ok: true, states, leases: charge ? leases : [] } : { ok: false, states, failed: r.f, retryAfterMs: r.r };
  }

  admit(checks: readonly AdmissionCheck[]): Promise<AdmissionResult> {
    return this.runAdmit('admit', checks, true);
  }

  async inspect(checks: readonly AdmissionCheck[]): Promise<CheckState[]> {
    return (await this.runAdmit('inspect', checks, false)).states;
  }

  async charge(charges: readonly Charge[]): Promise<void> {
    if (charges.length === 0) return;
    const { keys, wire } = this.chargeArgs(charges, []);
    await this.limitCall('charge', keys, { o: 'c', n: keys.length, c: wire });
  }

  /** A charge call's arguments: lease releases first, then the charges. */
  private chargeArgs(charges: readonly Charge[], leases: readonly Lease[]): { keys: string[]; wire: unknown[] } {
    const keys = [...leases.map((l) => this.limitKey('concurrency', l.key)), ...charges.map((c) => this.limitKey(c.kind, c.key))];
    // Counter amounts travel as strings so INCRBYFLOAT sees the caller's decimal, not a re-printed double.
    const wire = [
      ...leases.map((l) => ({ k: 'r', id: l.id })),
      ...charges.map((c) => (c.kind === 'window' ? { k: 'w', w: c.windowMs, b: bucketMs(c.windowMs), a: c.amount } : { k: 'c', a: String(c.amount), t: c.ttlMs })),
    ];
    return { keys, wire };
  }

  async release(leases: readonly Lease[]): Promise<void> {
    if (leases.length === 0) return;
    const { keys, wire } = this.chargeArgs([], leases);
    await this.limitCall('release', keys, { o: 'c', n: keys.length, c: wire });
  }

  async settle(charges: readonly Charge[], leases: readonly Lease[]): Promise<void> {
    if (charges.length === 0 && leases.length === 0) return;
    // Releases first, then the charges, in one call of the script.
    const { keys, wire } = this.chargeArgs(charges, leases);
    await this.limitCall('charge', keys, { o: 'c', n: keys.length, c: wire });
  }

  async readCounters(keys: readonly string[]): Promise<number[]> {
    if (keys.length === 0) return [];
    const values = await this.run('read_counters', () => this.client.mget(...keys.map((k) => this.limitKey('counter', k))));
    return values.map((v) => (v === null ? 0 : Number(v)));
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
