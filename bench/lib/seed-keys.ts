// Many runtime keys at once, for the runtime-keys bench: the records the admin API's POST /admin/keys
// would store (built by the same function, access/key-admin.ts newKeyRecord), written straight into
// the state store in batches of conditional creates (expect: absent), each batch one writeRecords call
// with one audit entry. 10,000 keys take well under a second on Redis, where 10,000 POSTs would take
// minutes: each POST re-reads the records. The secrets are returned so the bench can use the keys.
import type { KeyCreateBody } from '../../src/access/admin-schemas.js';
import { newKeyRecord } from '../../src/access/key-admin.js';
import { keyId } from '../../src/access/key-records.js';
import { newSecret } from '../../src/access/key-secret.js';
import type { StateStore } from '../../src/state/types.js';

export interface SeedOptions {
  count: number;
  /** Key i's name (default `seed-00000` …). Names must be unique and unused in the store. */
  name?: (i: number) => string;
  /** Key i's fields beyond its name (limits, budget, team …); the same for every key by default. */
  fields?: (i: number) => Omit<KeyCreateBody, 'name'>;
  /** Records per writeRecords call (default 500). */
  batch?: number;
  /** `created_by` and the audit entry's admin. */
  admin?: string;
  now?: () => number;
}

export interface SeededKey {
  name: string;
  secret: string;
}

export const seedName = (i: number): string => `seed-${String(i).padStart(5, '0')}`;

/** Creates `count` runtime keys; rejects (having written the batches before it) when a name exists. */
export async function seedRuntimeKeys(store: StateStore, o: SeedOptions): Promise<SeededKey[]> {
  const batch = Math.max(1, o.batch ?? 500);
  const admin = o.admin ?? 'bench-seed';
  const now = o.now ?? Date.now;
  const nameOf = o.name ?? seedName;
  const out: SeededKey[] = [];
  for (let start = 0; start < o.count; start += batch) {
    const end = Math.min(o.count, start + batch);
    const at = new Date(now()).toISOString();
    const writes = [];
    for (let i = start; i < end; i++) {
      const secret = newSecret();
      const record = newKeyRecord({ ...(o.fields?.(i) ?? {}), name: nameOf(i) }, secret, admin, at);
      writes.push({ id: keyId(record.name), value: JSON.stringify(record), expect: null });
      out.push({ name: record.name, secret });
    }
    const audit = { at, admin, action: 'key.create', target: `${nameOf(start)}…${nameOf(end - 1)}`, changed: ['seed'] };
    const result = await store.writeRecords(writes, JSON.stringify(audit));
    if (!result.ok) throw new Error(`seeding runtime keys: ${writes[result.failed]!.id} already exists`);
  }
  return out;
}
