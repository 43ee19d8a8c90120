// Who is calling: the identity and policy authentication produces, shared (never copied) by every
// request of that key until the next config reload.
import type { Budget, RateLimits } from '../config/types.js';

/** A compiled model allow-list (access/model-access.ts): exact aliases and glob patterns. */
export interface ModelMatcher {
  exact: ReadonlySet<string>;
  patterns: readonly RegExp[];
}

/** What a key or a team may do. */
export interface Policy {
  /** undefined = every model. */
  models: ModelMatcher | undefined;
  limits: RateLimits | undefined;
  budget: Budget | undefined;
}

export interface Caller {
  /** The key's configured name; `anonymous` when the gateway has no keys. Also the owner of stored state. */
  name: string;
  team: string | undefined;
  /** An `auth.admin_keys` key: sees the admin view; may not call models. */
  admin: boolean;
  anonymous: boolean;
  key: Policy;
  /** The team's policy, applied on top of the key's. */
  teamPolicy: Policy | undefined;
  /** A runtime key's expiry (ms since the epoch); config keys never expire. */
  expiresAt?: number;
}

const UNLIMITED: Policy = Object.freeze({ models: undefined, limits: undefined, budget: undefined });

/** The caller of a gateway without keys: every model, no limits. */
export const ANONYMOUS_CALLER: Caller = Object.freeze({
  name: 'anonymous',
  team: undefined,
  admin: false,
  anonymous: true,
  key: UNLIMITED,
  teamPolicy: undefined,
});

export function adminCaller(name: string): Caller {
  return Object.freeze({ name, team: undefined, admin: true, anonymous: false, key: UNLIMITED, teamPolicy: undefined });
}
