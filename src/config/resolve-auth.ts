// `auth` (keys, teams, admin keys) and prices, resolved and checked: every problem names its field.
// Secrets never appear in a message: a duplicated key is reported by the names that share it.
import { createHash } from 'node:crypto';
import { ConfigError } from './config-error.js';
import type { RawAuth, RawBudget, RawLimits, RawPrice } from './schema.js';
import type { AdminKeyConfig, AuthConfig, Budget, KeyConfig, ModelPrice, RateLimits, TeamConfig } from './types.js';

const SHA256_HEX = /^[0-9a-fA-F]{64}$/;
/** auth.runtime_keys.max_staleness_s by default: rides out a Redis fail-over, refuses a stale copy soon after. */
const DEFAULT_MAX_STALENESS_MS = 5_000;

export interface ResolvedAuth {
  authKeys: KeyConfig[];
  auth: AuthConfig;
}

/**
 * `template` is the same `auth` section before `${ENV}` interpolation (when there was one): it only
 * serves to name the variable behind an empty key in the error.
 */
export function resolveAuth(raw: RawAuth | undefined, template?: unknown): ResolvedAuth {
  const teams = new Map<string, TeamConfig>();
  for (const [name, t] of Object.entries(raw?.teams ?? {})) {
    teams.set(name, { name, models: t.models, limits: limitsOf(t.limits), budget: budgetOf(t.budget) });
  }

  // digest → the field that claimed it, to refuse two identities behind one secret.
  const owners = new Map<string, string>();
  const names = new Map<string, string>();
  const claim = (field: string, name: string, digest: string | undefined): void => {
    const prior = names.get(name);
    if (prior !== undefined) throw new ConfigError(`${field}.name: "${name}" is already used by ${prior}`);
    names.set(name, field);
    if (digest === undefined) return;
    const holder = owners.get(digest);
    if (holder !== undefined) throw new ConfigError(`${field}: the same key as ${holder}; every key must be distinct`);
    owners.set(digest, field);
  };

  // Every entry is checked: their problems are reported together.
  const problems: string[] = [];
  const each = <T>(list: readonly T[] | undefined, fn: (item: T, i: number) => void) =>
    (list ?? []).forEach((item, i) => {
      try {
        fn(item, i);
      } catch (err) {
        if (!(err instanceof ConfigError)) throw err;
        problems.push(...err.problems);
      }
    });
  const authKeys: KeyConfig[] = [];
  const disabled: string[] = [];
  each(raw?.keys, (k, i) => {
    const field = `auth.keys.${i}`;
    const id = identity(field, k, templateKey(template, 'keys', i));
    claim(field, k.name, id?.digest);
    if (k.team !== undefined && !teams.has(k.team)) {
      const known = [...teams.keys()];
      throw new ConfigError(`${field}.team: unknown team "${k.team}" (${known.length ? 'known: ' + known.join(', ') : 'auth.teams is empty'})`);
    }
    // Only `disabled: true` switches an entry off (an empty key is an error, see identity()).
    if (id === undefined) {
      disabled.push(k.name);
      return;
    }
    const entry: KeyConfig = { name: k.name };
    if (id.key !== undefined) entry.key = id.key;
    else entry.keySha256 = id.digest;
    if (k.team !== undefined) entry.team = k.team;
    if (k.models !== undefined) entry.models = k.models;
    const limits = limitsOf(k.limits);
    if (limits) entry.limits = limits;
    const budget = budgetOf(k.budget);
    if (budget) entry.budget = budget;
    authKeys.push(entry);
  });

  const adminKeys: AdminKeyConfig[] = [];
  each(raw?.admin_keys, (k, i) => {
    const field = `auth.admin_keys.${i}`;
    const id = identity(field, k, templateKey(template, 'admin_keys', i));
    claim(field, k.name, id?.digest);
    if (id === undefined) {
      disabled.push(k.name);
      return;
    }
    adminKeys.push(id.key !== undefined ? { name: k.name, key: id.key } : { name: k.name, keySha256: id.digest });
  });

  if (problems.length > 0) throw new ConfigError(problems);
  // Fail closed: open access is never inferred from an empty key list (every key's variable unset
  // would otherwise open the gateway); admin keys alone keep it closed.
  const open = raw?.open === true;
  if (open && authKeys.length > 0) {
    throw new ConfigError(`auth.open: true cannot be combined with auth.keys (${authKeys.map((k) => k.name).join(', ')}); remove one`);
  }
  if (!open && authKeys.length === 0 && adminKeys.length === 0) {
    const disabled = (raw?.keys ?? []).length > 0 ? ' (every auth.keys entry is disabled)' : '';
    throw new ConfigError(
      `auth: no keys configured${disabled}; add auth.keys, or set auth.open: true to let anyone who can reach the gateway call every model`,
    );
  }
  const runtimeKeys = {
    enabled: raw?.runtime_keys?.enabled ?? adminKeys.length > 0,
    maxStalenessMs: Math.round((raw?.runtime_keys?.max_staleness_s ?? DEFAULT_MAX_STALENESS_MS / 1000) * 1000),
  };
  if (raw?.runtime_keys?.enabled === true && adminKeys.length === 0) {
    throw new ConfigError('auth.runtime_keys.enabled: runtime keys are issued by admin keys; add auth.admin_keys');
  }
  return { authKeys, auth: { teams, adminKeys, open, runtimeKeys, ...(disabled.length > 0 ? { disabled } : {}) } };
}

interface RawIdentity {
  name: string;
  key?: string;
  key_sha256?: string;
  disabled?: boolean;
}

/**
 * The key's digest (and the plain key when given); undefined for a `disabled: true` entry. An empty
 * key is an error naming the entry (and the variable behind it when known): it is almost always an
 * unset `${ENV}`, and silently dropping it once opened the gateway.
 */
function identity(field: string, k: RawIdentity, template: string | undefined): { key?: string; digest: string } | undefined {
  const where = `${field} (${k.name})`;
  if (k.disabled === true) return undefined;
  if (k.key !== undefined && k.key_sha256 !== undefined) throw new ConfigError(`${where}: give key or key_sha256, not both`);
  if (k.key_sha256 !== undefined) {
    if (k.key_sha256 === '') throw new ConfigError(`${where}: key_sha256 is empty${unsetHint(template)}`);
    if (!SHA256_HEX.test(k.key_sha256)) throw new ConfigError(`${field}.key_sha256: must be 64 hex digits (the sha256 of the key)`);
    return { digest: k.key_sha256.toLowerCase() };
  }
  if (k.key === undefined) throw new ConfigError(`${where}: needs key or key_sha256 (or disabled: true)`);
  if (k.key === '') throw new ConfigError(`${where}: key is empty${unsetHint(template)}; to switch the entry off, write disabled: true`);
  return { key: k.key, digest: createHash('sha256').update(k.key).digest('hex') };
}

/** ` — is ${ALICE_KEY} set?` when the uninterpolated text names variables. */
function unsetHint(template: string | undefined): string {
  const vars = template?.match(/\$\{[A-Za-z_][A-Za-z0-9_]*/g);
  return vars ? ` — is ${vars.map((v) => v + '}').join(', ')} set?` : '';
}

/** The uninterpolated `key` (or `key_sha256`) of auth.<list>[i], when the template has one. */
function templateKey(template: unknown, list: 'keys' | 'admin_keys', i: number): string | undefined {
  const entry = (template as Record<string, unknown[] | undefined> | undefined)?.[list]?.[i] as Record<string, unknown> | undefined;
  const text = entry?.key ?? entry?.key_sha256;
  return typeof text === 'string' ? text : undefined;
}

function limitsOf(raw: RawLimits | undefined): RateLimits | undefined {
  if (!raw || (raw.rpm === undefined && raw.tpm === undefined && raw.concurrency === undefined)) return undefined;
  return { rpm: raw.rpm, tpm: raw.tpm, concurrency: raw.concurrency };
}

function budgetOf(raw: RawBudget | undefined): Budget | undefined {
  return raw ? { usd: raw.usd, period: raw.period } : undefined;
}

export function resolvePrice(raw: RawPrice): ModelPrice {
  return { input: raw.input, output: raw.output, cacheRead: raw.cache_read ?? raw.input, cacheWrite: raw.cache_write ?? raw.input };
}
