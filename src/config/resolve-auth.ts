// `auth` (keys, teams, admin keys) and prices, resolved and checked: every problem names its field.
// Secrets never appear in a message: a duplicated key is reported by the names that share it.
import { createHash } from 'node:crypto';
import { ConfigError } from './config-error.js';
import type { RawAuth, RawBudget, RawLimits, RawPrice } from './schema.js';
import type { AdminKeyConfig, AuthConfig, Budget, KeyConfig, ModelPrice, RateLimits, TeamConfig } from './types.js';

const SHA256_HEX = /^[0-9a-fA-F]{64}$/;

export interface ResolvedAuth {
  authKeys: KeyConfig[];
  auth: AuthConfig;
}

export function resolveAuth(raw: RawAuth | undefined): ResolvedAuth {
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

  const authKeys: KeyConfig[] = [];
  (raw?.keys ?? []).forEach((k, i) => {
    const field = `auth.keys.${i}`;
    const id = identity(field, k.key, k.key_sha256);
    claim(field, k.name, id?.digest);
    if (k.team !== undefined && !teams.has(k.team)) {
      const known = [...teams.keys()];
      throw new ConfigError(`${field}.team: unknown team "${k.team}" (${known.length ? 'known: ' + known.join(', ') : 'auth.teams is empty'})`);
    }
    // An empty key (an unset ${ENV}) disables the entry, as it always has.
    if (id === undefined) return;
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
  (raw?.admin_keys ?? []).forEach((k, i) => {
    const field = `auth.admin_keys.${i}`;
    const id = identity(field, k.key, k.key_sha256);
    claim(field, k.name, id?.digest);
    if (id === undefined) return;
    adminKeys.push(id.key !== undefined ? { name: k.name, key: id.key } : { name: k.name, keySha256: id.digest });
  });

  return { authKeys, auth: { teams, adminKeys } };
}

/** The key's digest (and the plain key when given); undefined when the key is empty (disabled). */
function identity(field: string, key: string | undefined, keySha256: string | undefined): { key?: string; digest: string } | undefined {
  if (key !== undefined && keySha256 !== undefined) throw new ConfigError(`${field}: give key or key_sha256, not both`);
  if (keySha256 !== undefined) {
    if (!SHA256_HEX.test(keySha256)) throw new ConfigError(`${field}.key_sha256: must be 64 hex digits (the sha256 of the key)`);
    return { digest: keySha256.toLowerCase() };
  }
  if (key === undefined) throw new ConfigError(`${field}: needs key or key_sha256`);
  if (key === '') return undefined;
  return { key, digest: createHash('sha256').update(key).digest('hex') };
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
