// The `redis` backend: several gateway instances share one Redis (≥ 6). Every mutation is one Lua
// script (redis-scripts.ts), so limits are exact across instances; the clock is the server's TIME.
// Every call is bounded (commandTimeout); while Redis is away calls reject with
// StateUnavailableError instead of queueing, and ioredis reconnects in the background.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { bucketMs } from './admission-logic.js';
import { ADMIT, CHARGE, DELETE_DOC, PUT_DOC } from './redis-scripts.js';
import { documentBytes, namespaceBounds, tooLarge, type StoreOptions } from './options.js';
import { StateUnavailableError, type AdmissionCheck, type AdmissionResult, type Charge, type CheckState, type Lease, type StateStore } from './types.js';

export interface RedisStoreOptions extends StoreOptions {
  url: string;
  keyPrefix?: string;
  /** Upper bound of any one call, connection set-up included. */
  opTimeoutMs?: number;
}

interface ScriptCommands {
  swPutDoc(...args: (string | Buffer | number)[]): Promise<number>;
  swDeleteDoc(...args: string[]): Promise<number>;
  swAdmit(...args: string[]): Promise<string>;
  swCharge(...args: string[]): Promise<number>;
}

type Scripted = Redis & ScriptCommands;

/** The URL without its password, for messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable url)';
  }
}

export class RedisStateStore implements StateStore {
  readonly backend = 'redis' as const;
  private readonly client: Scripted;
  private subscriber: Redis | undefined;
  private readonly handlers = new Map<string, Set<(m: string) => void>>();
  private readonly prefix: string;
  private readonly boundOf: (ns: string) => number;
  private readonly where: string;
  private readonly opTimeoutMs: number;
  private lastError: string | undefined;

  constructor(private readonly options: RedisStoreOptions) {
    this.prefix = options.keyPrefix ?? 'switchyard:';
    this.boundOf = namespaceBounds(options);
    this.where = redactUrl(options.url);
    this.opTimeoutMs = options.opTimeoutMs ?? 1500;
    this.client = this.connect() as Scripted;
    this.client.defineCommand('swPutDoc', { numberOfKeys: 4, lua: PUT_DOC });
    this.client.defineCommand('swDeleteDoc', { numberOfKeys: 4, lua: DELETE_DOC });
    this.client.defineCommand('swAdmit', { lua: ADMIT });
    this.client.defineCommand('swCharge', { lua: CHARGE });
  }

  private connect(): Redis {
    const client = new Redis(this.options.url, {
      lazyConnect: true,
      connectTimeout: this.opTimeoutMs,
      commandTimeout: this.opTimeoutMs,
      // Fail queued calls after one reconnect attempt rather than holding requests while Redis is away.
      maxRetriesPerRequest: 1,
      retryStrategy: (times) => Math.min(100 * times, 1000),
      enableAutoPipelining: true,
    });
    // Without a listener ioredis prints every failed reconnect; the error surfaces through the calls.
    client.on('error', (err: Error) => {
      this.lastError = err.message;
    });
    client.on('ready', () => {
      this.lastError = undefined;
    });
    return client;
  }

  private async run<T>(op: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      // ioredis reports "max retries reached" for a refused connection; the connection error says why.
      const message = (err as Error).message || 'unknown error';
      const detail = this.lastError && /max retries/i.test(message) ? `cannot connect: ${this.lastError}` : message;
      const e = new StateUnavailableError(op, `state store unavailable (redis at ${this.where}, ${op}): ${detail}`, { cause: err });
      this.options.onError?.(op, e);
      throw e;
    }
  }

  private docKeys(ns: string, id: string): [string, string, string, string] {
    const p = this.prefix;
    return [`${p}d:${ns}:${id}`, `${p}do:${ns}`, `${p}dm:${ns}`, `${p}ds:${ns}`];
  }

  async getDoc(ns: string, id: string, owner: string): Promise<Uint8Array | undefined> {
    const [owned, value] = await this.run('get', () => this.client.hmgetBuffer(this.docKeys(ns, id)[0], 'o', 'v'));
    if (!owned || !value || owned.toString() !== owner) return undefined;
    return value;
  }

  async putDoc(ns: string, id: string, owner: string, value: Uint8Array, ttlMs: number): Promise<void> {
    const max = this.boundOf(ns);
    const bytes = documentBytes(id, owner, value);
    if (bytes > max) throw tooLarge(ns, bytes, max);
    const buf = Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    const keys = this.docKeys(ns, id);
    await this.run('put', () =>
      this.client.swPutDoc(...keys, id, owner, buf, String(bytes), String(Math.max(1, Math.round(ttlMs))), String(max), `${this.prefix}d:${ns}:`),
    );
  }

  async deleteDoc(ns: string, id: string, owner: string): Promise<boolean> {
    const n = await this.run('delete', () => this.client.swDeleteDoc(...this.docKeys(ns, id), id, owner));
    return n === 1;
  }

  private checkArgs(checks: readonly AdmissionCheck[]): { keys: string[]; json: string; leases: Lease[] } {
    const leases: Lease[] = [];
    const wire = checks.map((c) => {
      switch (c.kind) {
        case 'window':
          return { k: 'w', w: c.windowMs, b: bucketMs(c.windowMs), l: c.limit, c: c.cost };
        case 'counter':
          return { k: 'c', l: c.limit };
        case 'concurrency': {
          const id = randomBytes(9).toString('base64url');
          leases.push({ key: c.key, id });
          return { k: 'l', l: c.limit, m: c.leaseMs, id };
        }
      }
    });
    return { keys: checks.map((c) => this.limitKey(c.kind, c.key)), json: JSON.stringify(wire), leases };
  }

  private limitKey(kind: 'window' | 'counter' | 'concurrency', key: string): string {
    // Windows are packed strings under `wp:` (they were hashes under `w:`, which simply expire).
    return `${this.prefix}${kind === 'window' ? 'wp' : kind === 'counter' ? 'c' : 'l'}:${key}`;
  }

  private async runAdmit(op: string, checks: readonly AdmissionCheck[], charge: boolean): Promise<AdmissionResult> {
    const { keys, json, leases } = this.checkArgs(checks);
    const raw = await this.run(op, () => this.client.swAdmit(String(keys.length), ...keys, json, charge ? '1' : '0'));
    const r = JSON.parse(raw) as { ok: boolean; s: [number, number, number][] | Record<string, never>; f: number; r: number };
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
    const { keys, json } = this.chargeArgs(charges, []);
    await this.run('charge', () => this.client.swCharge(String(keys.length), ...keys, json));
  }

  /** The CHARGE script's arguments: lease releases first, then the charges. */
  private chargeArgs(charges: readonly Charge[], leases: readonly Lease[]): { keys: string[]; json: string } {
    const keys = [...leases.map((l) => this.limitKey('concurrency', l.key)), ...charges.map((c) => this.limitKey(c.kind, c.key))];
    // Counter amounts travel as strings so INCRBYFLOAT sees the caller's decimal, not a re-printed double.
    const wire = [
      ...leases.map((l) => ({ k: 'r', id: l.id })),
      ...charges.map((c) => (c.kind === 'window' ? { k: 'w', w: c.windowMs, b: bucketMs(c.windowMs), a: c.amount } : { k: 'c', a: String(c.amount), t: c.ttlMs })),
    ];
    return { keys, json: JSON.stringify(wire) };
  }

  async release(leases: readonly Lease[]): Promise<void> {
    if (leases.length === 0) return;
    await this.run('release', async () => {
      const pipeline = this.client.pipeline();
      for (const l of leases) pipeline.zrem(this.limitKey('concurrency', l.key), l.id);
      const results = await pipeline.exec();
      const failed = results?.find(([err]) => err);
      if (failed) throw failed[0];
    });
  }

  async settle(charges: readonly Charge[], leases: readonly Lease[]): Promise<void> {
    if (charges.length === 0 && leases.length === 0) return;
    // One script call for both (releases first): one command instead of a script plus a pipeline.
    const { keys, json } = this.chargeArgs(charges, leases);
    await this.run('charge', () => this.client.swCharge(String(keys.length), ...keys, json));
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
    const all = [this.client, this.subscriber].filter((c): c is Redis => c !== undefined);
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
