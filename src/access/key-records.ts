// Runtime keys and teams as the state store keeps them: one JSON record each, under `key:<name>` and
// `team:<name>`. A key record holds the sha256 of its secret (never the secret) and, during a
// rotation's grace period, the previous secret's digest with its end.
import type { Budget, RateLimits } from '../config/types.js';

export type Metadata = Record<string, string | number | boolean | null>;

export interface KeyRecord {
  name: string;
  team?: string;
  models?: string[];
  limits?: RateLimits;
  budget?: Budget;
  /** RFC 3339. */
  expires_at?: string;
  metadata?: Metadata;
  disabled: boolean;
  /** The secret's public prefix (sk-sy-…), for display. */
  prefix: string;
  sha256: string;
  /** The secret replaced by the last rotation, accepted until `until` (RFC 3339). */
  previous?: { prefix: string; sha256: string; until: string };
  created_at: string;
  updated_at: string;
  created_by: string;
}

export interface TeamRecord {
  name: string;
  models?: string[];
  limits?: RateLimits;
  budget?: Budget;
  metadata?: Metadata;
  disabled: boolean;
  created_at: string;
  updated_at: string;
  created_by: string;
}

export const keyId = (name: string): string => 'key:' + name;
export const teamId = (name: string): string => 'team:' + name;

export interface ParsedRecords {
  keys: Map<string, KeyRecord>;
  teams: Map<string, TeamRecord>;
}

/** Records as read from the store; an unreadable record is skipped (and reported), never fatal. */
export function parseRecords(records: ReadonlyMap<string, string>, onBad?: (id: string) => void): ParsedRecords {
  const keys = new Map<string, KeyRecord>();
  const teams = new Map<string, TeamRecord>();
  for (const [id, raw] of records) {
    try {
      if (id.startsWith('key:')) keys.set(id.slice(4), JSON.parse(raw) as KeyRecord);
      else if (id.startsWith('team:')) teams.set(id.slice(5), JSON.parse(raw) as TeamRecord);
    } catch {
      onBad?.(id);
    }
  }
  return { keys, teams };
}

/** A key record as the admin API shows it: everything but the digests. */
export function publicKeyView(r: KeyRecord): Omit<KeyRecord, 'sha256' | 'previous'> & { previous?: { prefix: string; until: string } } {
  const { sha256: _digest, previous, ...rest } = r;
  return previous === undefined ? rest : { ...rest, previous: { prefix: previous.prefix, until: previous.until } };
}
