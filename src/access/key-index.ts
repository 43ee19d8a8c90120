// The key index: built once per configuration, it maps the sha256 of each configured key to its
// caller. A lookup hashes the presented key and compares that digest with EVERY configured digest
// through timingSafeEqual, without stopping at a match: the work done depends on the number of
// configured keys, never on how much of a presented key is right (wrong, missing, truncated and
// padded keys all take this one path). Comparing digests rather than keys also hides key lengths.
import { createHash, hash, timingSafeEqual } from 'node:crypto';
import type { AdminKeyConfig, AuthConfig, KeyConfig, TeamConfig } from '../config/types.js';
import { adminCaller, type Caller, type Policy } from './caller.js';
import { compileAllowList } from './model-access.js';

interface Entry {
  digest: Buffer;
  caller: Caller;
}

export class KeyIndex {
  private readonly entries: Entry[] = [];
  /** True only with `auth.open: true` (never inferred from an empty key list): everyone without a
   * recognised key is the anonymous caller. */
  readonly open: boolean;

  constructor(keys: readonly KeyConfig[], auth: AuthConfig | undefined) {
    const teams = new Map<string, Policy>();
    for (const t of auth?.teams.values() ?? []) teams.set(t.name, policyOf(t));
    for (const k of keys) {
      const teamPolicy = k.team === undefined ? undefined : teams.get(k.team) ?? policyOf({ name: k.team });
      const caller: Caller = Object.freeze({ name: k.name, team: k.team, admin: false, anonymous: false, key: policyOf(k), teamPolicy });
      this.entries.push({ digest: digestOf(k), caller });
    }
    for (const a of auth?.adminKeys ?? []) this.entries.push({ digest: digestOf(a), caller: adminCaller(a.name) });
    this.open = auth?.open === true && keys.length === 0;
  }

  /** The caller this key belongs to, or undefined. `presented` undefined (no key sent) is hashed as "". */
  lookup(presented: string | undefined): Caller | undefined {
    // No keys at all (an open gateway): nothing to match, and no timing to hide.
    if (this.entries.length === 0) return undefined;
    // One-shot hash (Node ≥ 20.12): no Hash object per request.
    return this.lookupDigest(hash('sha256', presented ?? '', 'buffer'), presented === undefined);
  }

  /** The same, from the presented key's sha256 (computed once by the caller, who also needs it for
   * runtime keys). `absent`: no key was sent (the digest of "" is compared, and nothing matches). */
  lookupDigest(digest: Buffer, absent: boolean): Caller | undefined {
    if (this.entries.length === 0) return undefined;
    let found: Caller | undefined;
    for (const e of this.entries) {
      // No early exit: every request compares against every entry.
      if (timingSafeEqual(e.digest, digest) && found === undefined) found = e.caller;
    }
    return absent ? undefined : found;
  }

  /** Every key caller (not admins), in config order: the admin view lists them. */
  callers(): Caller[] {
    return this.entries.map((e) => e.caller).filter((c) => !c.admin);
  }
}

function digestOf(k: KeyConfig | AdminKeyConfig): Buffer {
  if (k.keySha256 !== undefined) return Buffer.from(k.keySha256, 'hex');
  return createHash('sha256').update(k.key ?? '').digest();
}

function policyOf(p: KeyConfig | TeamConfig): Policy {
  return Object.freeze({
    models: p.models === undefined ? undefined : compileAllowList(p.models),
    limits: p.limits,
    budget: p.budget,
  });
}

const NO_EXTRAS: AuthConfig = Object.freeze({ teams: new Map<string, TeamConfig>(), adminKeys: [], open: false });
const cache = new WeakMap<readonly KeyConfig[], WeakMap<AuthConfig, KeyIndex>>();

/**
 * The index of a configuration's keys (and teams and admin keys), built on first use and kept as long
 * as those objects live: a reload brings new ones and therefore a new index.
 */
export function keyIndexFor(keys: readonly KeyConfig[], auth: AuthConfig = NO_EXTRAS): KeyIndex {
  let byAuth = cache.get(keys);
  if (byAuth === undefined) {
    byAuth = new WeakMap();
    cache.set(keys, byAuth);
  }
  let index = byAuth.get(auth);
  if (index === undefined) {
    index = new KeyIndex(keys, auth);
    byAuth.set(auth, index);
  }
  return index;
}
