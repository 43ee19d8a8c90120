// The admin API's operations on runtime keys and teams: checks beyond the body's shape (names that
// clash with the config, unknown teams and models, expiry in the past, metadata size), then one
// conditional write of the record and its audit entry, so two admins racing on one record cannot
// both win (the loser reads again and retries, or is told the name is taken). Every change is
// logged as a structured line and kept in the store's audit list. Secrets are returned once, by
// create and rotate; nothing else ever holds them.
import type { Logger } from 'pino';
import type { AuthConfig, GatewayConfig } from '../config/types.js';
import { GatewayError } from '../errors.js';
import type { StateStore } from '../state/types.js';
import type { KeyCreateBody, KeyPatchBody, RotateBody, TeamCreateBody, TeamPatchBody } from './admin-schemas.js';
import { MAX_METADATA_BYTES } from './admin-schemas.js';
import { keyId, publicKeyView, teamId, type KeyRecord, type Metadata, type TeamRecord } from './key-records.js';
import { newSecret, publicPrefix, secretDigest } from './key-secret.js';
import type { RuntimeKeys } from './runtime-keys.js';

export type AdminConfig = Pick<GatewayConfig, 'authKeys' | 'auth' | 'models'>;

export interface AuditEntry {
  at: string;
  /** The admin key's name (from auth.admin_keys). */
  admin: string;
  action: 'key.create' | 'key.update' | 'key.rotate' | 'key.revoke' | 'team.create' | 'team.update' | 'team.delete';
  target: string;
  /** The fields the change set (never their secret values: there are none in a record). */
  changed: string[];
}

export type KeyView = ReturnType<typeof publicKeyView>;

const TRIES = 3;

export class KeyAdmin {
  constructor(
    private readonly store: StateStore,
    private readonly runtime: RuntimeKeys,
    private readonly config: () => AdminConfig,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  async listKeys(): Promise<KeyView[]> {
    await this.runtime.refreshNow();
    return this.runtime.keys().sort(byName).map(publicKeyView);
  }

  async getKey(name: string): Promise<KeyView> {
    await this.runtime.refreshNow();
    return publicKeyView(this.existingKey(name));
  }

  async createKey(admin: string, body: KeyCreateBody): Promise<KeyView & { key: string }> {
    await this.runtime.refreshNow();
    const config = this.config();
    const clash = configNameOf(config.auth, config.authKeys, body.name);
    if (clash) throw invalid('name', `name: "${body.name}" is already ${clash}`, 'duplicate_name');
    this.checkPolicy(config, body);
    const secret = newSecret();
    const record = newKeyRecord(body, secret, admin, this.iso());
    const result = await this.write(keyId(record.name), JSON.stringify(record), null, { admin, action: 'key.create', target: record.name, changed: Object.keys(body) });
    if (!result) throw invalid('name', `name: a key named "${body.name}" already exists`, 'duplicate_name');
    return { ...publicKeyView(record), key: secret };
  }

  async updateKey(admin: string, name: string, patch: KeyPatchBody): Promise<KeyView> {
    const config = this.config();
    this.checkPolicy(config, { team: patch.team ?? undefined, models: patch.models ?? undefined, expires_at: patch.expires_at ?? undefined, metadata: patch.metadata ?? undefined });
    const updated = await this.change(admin, 'key.update', name, Object.keys(patch), (r) => {
      const next: KeyRecord = { ...r, updated_at: this.iso() };
      setOrClear(next, 'team', patch.team);
      setOrClear(next, 'models', patch.models);
      setOrClear(next, 'limits', patch.limits);
      setOrClear(next, 'budget', patch.budget);
      setOrClear(next, 'expires_at', patch.expires_at === undefined || patch.expires_at === null ? patch.expires_at : new Date(Date.parse(patch.expires_at)).toISOString());
      setOrClear(next, 'metadata', patch.metadata);
      if (patch.disabled !== undefined) next.disabled = patch.disabled;
      return next;
    });
    return publicKeyView(updated);
  }

  async rotateKey(admin: string, name: string, body: RotateBody): Promise<KeyView & { key: string }> {
    const secret = newSecret();
    const grace = body.grace_s ?? 0;
    const updated = await this.change(admin, 'key.rotate', name, grace > 0 ? ['key', 'grace_s'] : ['key'], (r) => {
      const next: KeyRecord = { ...r, prefix: publicPrefix(secret), sha256: secretDigest(secret), updated_at: this.iso() };
      delete next.previous;
      if (grace > 0) next.previous = { prefix: r.prefix, sha256: r.sha256, until: new Date(this.now() + grace * 1000).toISOString() };
      return next;
    });
    return { ...publicKeyView(updated), key: secret };
  }

  async revokeKey(admin: string, name: string): Promise<void> {
    await this.change(admin, 'key.revoke', name, [], () => null);
  }

  async listTeams(): Promise<TeamRecord[]> {
    await this.runtime.refreshNow();
    return this.runtime.teams().sort(byName);
  }

  async getTeam(name: string): Promise<TeamRecord> {
    await this.runtime.refreshNow();
    return this.existingTeam(name);
  }

  async createTeam(admin: string, body: TeamCreateBody): Promise<TeamRecord> {
    await this.runtime.refreshNow();
    const config = this.config();
    if (config.auth.teams.has(body.name)) throw invalid('name', `name: "${body.name}" is already a team in auth.teams`, 'duplicate_name');
    this.checkModels(config, body.models);
    checkMetadata(body.metadata);
    const at = this.iso();
    const record: TeamRecord = {
      name: body.name,
      ...(body.models !== undefined ? { models: body.models } : {}),
      ...(body.limits !== undefined ? { limits: body.limits } : {}),
      ...(body.budget !== undefined ? { budget: body.budget } : {}),
      ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
      disabled: false,
      created_at: at,
      updated_at: at,
      created_by: admin,
    };
    const ok = await this.write(teamId(record.name), JSON.stringify(record), null, { admin, action: 'team.create', target: record.name, changed: Object.keys(body) });
    if (!ok) throw invalid('name', `name: a team named "${body.name}" already exists`, 'duplicate_name');
    return record;
  }

  async updateTeam(admin: string, name: string, patch: TeamPatchBody): Promise<TeamRecord> {
    this.checkModels(this.config(), patch.models ?? undefined);
    checkMetadata(patch.metadata ?? undefined);
    return this.changeTeam(admin, 'team.update', name, Object.keys(patch), (t) => {
      const next: TeamRecord = { ...t, updated_at: this.iso() };
      setOrClear(next, 'models', patch.models);
      setOrClear(next, 'limits', patch.limits);
      setOrClear(next, 'budget', patch.budget);
      setOrClear(next, 'metadata', patch.metadata);
      if (patch.disabled !== undefined) next.disabled = patch.disabled;
      return next;
    });
  }

  /** Refused while keys belong to the team (their team policy would silently vanish). */
  async deleteTeam(admin: string, name: string): Promise<void> {
    await this.runtime.refreshNow();
    const members = this.runtime.keys().filter((k) => k.team === name).map((k) => k.name);
    if (members.length > 0) throw new GatewayError('conflict', `team "${name}" still has keys (${members.slice(0, 10).join(', ')}); move or revoke them first`);
    await this.changeTeam(admin, 'team.delete', name, [], () => null);
  }

  async audit(limit: number): Promise<AuditEntry[]> {
    const raw = await this.store.readAudit(limit);
    const out: AuditEntry[] = [];
    for (const r of raw) {
      try {
        out.push(JSON.parse(r) as AuditEntry);
      } catch {
        // an unreadable entry is skipped
      }
    }
    return out;
  }

  // ---- internals ----

  private iso(): string {
    return new Date(this.now()).toISOString();
  }

  private existingKey(name: string): KeyRecord {
    const r = this.runtime.key(name);
    if (r === undefined) throw new GatewayError('not_found', `no runtime key named "${name}"`);
    return r;
  }

  private existingTeam(name: string): TeamRecord {
    const t = this.runtime.team(name);
    if (t === undefined) throw new GatewayError('not_found', `no runtime team named "${name}"`);
    return t;
  }

  /** Read (fresh), change, write if unchanged meanwhile; on a race read again (TRIES times). */
  private async change(admin: string, action: AuditEntry['action'], name: string, changed: string[], edit: (r: KeyRecord) => KeyRecord | null): Promise<KeyRecord> {
    for (let i = 0; i < TRIES; i++) {
      await this.runtime.refreshNow();
      const current = this.existingKey(name);
      const next = edit(current);
      const ok = await this.write(keyId(name), next === null ? null : JSON.stringify(next), this.runtime.rawRecord(keyId(name))!, { admin, action, target: name, changed });
      if (ok) return next ?? current;
    }
    throw new GatewayError('conflict', `key "${name}" is being changed by someone else; retry`);
  }

  private async changeTeam(admin: string, action: AuditEntry['action'], name: string, changed: string[], edit: (t: TeamRecord) => TeamRecord | null): Promise<TeamRecord> {
    for (let i = 0; i < TRIES; i++) {
      await this.runtime.refreshNow();
      const current = this.existingTeam(name);
      const next = edit(current);
      const ok = await this.write(teamId(name), next === null ? null : JSON.stringify(next), this.runtime.rawRecord(teamId(name))!, { admin, action, target: name, changed });
      if (ok) return next ?? current;
    }
    throw new GatewayError('conflict', `team "${name}" is being changed by someone else; retry`);
  }

  /** One conditional write with its audit entry; false when the expectation did not hold. */
  private async write(id: string, value: string | null, expect: string | null, what: Omit<AuditEntry, 'at'>): Promise<boolean> {
    const entry: AuditEntry = { at: this.iso(), ...what };
    const result = await this.store.writeRecords([{ id, value, expect }], JSON.stringify(entry));
    if (!result.ok) return false;
    this.logger.info({ audit: entry }, 'admin change');
    // In force here at once; elsewhere within the poll interval.
    await this.runtime.refreshNow();
    return true;
  }

  private checkPolicy(config: AdminConfig, p: { team?: string | undefined; models?: string[] | undefined; expires_at?: string | undefined; metadata?: Metadata | undefined }): void {
    if (p.team !== undefined && !config.auth.teams.has(p.team) && this.runtime.team(p.team) === undefined) {
      throw invalid('team', `team: unknown team "${p.team}" (neither in auth.teams nor created through /admin/teams)`);
    }
    this.checkModels(config, p.models);
    if (p.expires_at !== undefined) {
      const t = Date.parse(p.expires_at);
      if (!Number.isFinite(t) || !/^\d{4}-\d{2}-\d{2}T/.test(p.expires_at)) throw invalid('expires_at', 'expires_at: must be an RFC 3339 date-time, e.g. 2027-01-31T00:00:00Z');
      if (t <= this.now()) throw invalid('expires_at', 'expires_at: must be in the future');
    }
    checkMetadata(p.metadata);
  }

  /** Every exact entry names a configured model; every pattern matches one (or is a wildcard route). */
  private checkModels(config: AdminConfig, models: string[] | undefined): void {
    if (models === undefined) return;
    const names = config.models.map((m) => m.name);
    models.forEach((entry, i) => {
      const glob = /[*?[]/.test(entry);
      const known = glob
        ? names.includes(entry) || names.some((n) => globMatch(entry, n))
        : config.models.some((m) => m.name === entry || m.pattern?.test(entry) === true);
      if (!known) throw invalid(`models.${i}`, `models.${i}: "${entry}" ${glob ? 'matches no configured model' : 'is not a configured model'} (configured: ${names.slice(0, 20).join(', ')})`);
    });
  }
}

/** A new key's record as stored: the body's fields, the secret's prefix and digest (never the secret).
 * Exported for tools that write many records at once (the runtime-keys bench seeds 10,000 this way). */
export function newKeyRecord(body: KeyCreateBody, secret: string, admin: string, at: string): KeyRecord {
  return {
    name: body.name,
    ...(body.team !== undefined ? { team: body.team } : {}),
    ...(body.models !== undefined ? { models: body.models } : {}),
    ...(body.limits !== undefined ? { limits: body.limits } : {}),
    ...(body.budget !== undefined ? { budget: body.budget } : {}),
    ...(body.expires_at !== undefined ? { expires_at: new Date(Date.parse(body.expires_at)).toISOString() } : {}),
    ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
    disabled: false,
    prefix: publicPrefix(secret),
    sha256: secretDigest(secret),
    created_at: at,
    updated_at: at,
    created_by: admin,
  };
}

function globMatch(glob: string, name: string): boolean {
  const re = new RegExp('^' + glob.replace(/[.+^${}()|\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.') + '$');
  return re.test(name);
}

function checkMetadata(metadata: Metadata | undefined): void {
  if (metadata === undefined) return;
  const bytes = Buffer.byteLength(JSON.stringify(metadata));
  if (bytes > MAX_METADATA_BYTES) throw invalid('metadata', `metadata: ${bytes} bytes as JSON; at most ${MAX_METADATA_BYTES}`);
}

/** What a name already is in the config ("a key in auth.keys"), or undefined. */
function configNameOf(auth: AuthConfig, keys: AdminConfig['authKeys'], name: string): string | undefined {
  if (keys.some((k) => k.name === name)) return 'a key in auth.keys';
  if (auth.adminKeys.some((k) => k.name === name)) return 'an admin key in auth.admin_keys';
  if (auth.disabled?.includes(name)) return 'a disabled entry in auth';
  return undefined;
}

function setOrClear<T extends object, K extends keyof T>(target: T, field: K, value: T[K] | null | undefined): void {
  if (value === undefined) return;
  if (value === null) delete target[field];
  else target[field] = value;
}

function invalid(param: string, message: string, code?: string): GatewayError {
  return new GatewayError('invalid_request', message, { param, ...(code ? { code } : {}) });
}

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
