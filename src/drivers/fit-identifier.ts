// End-user and cache identifiers crossing to an upstream with a tighter length limit than the caller's
// (mapping.md §15.52): Claude Code's `metadata.user_id` is a JSON string of ~190 characters, OpenAI's
// `safety_identifier`, `user` and `prompt_cache_key` take at most 64. One that does not fit becomes a
// digest of itself: stable across turns (same id, same form), distinct between ids, and not the raw
// value (OpenAI asks for hashed identifiers anyway). One that fits is sent as it is.
import { createHash } from 'node:crypto';

/** OpenAI's limit for `safety_identifier`, `prompt_cache_key` and `user`. */
export const OPENAI_IDENTIFIER_MAX = 64;
/** Anthropic's limit for `metadata.user_id`. */
export const ANTHROPIC_USER_ID_MAX = 256;

const PREFIX = 'sha256-';
/** 48 hex digits (192 bits): 55 characters with the prefix. */
const HEX_DIGITS = 48;

// Callers send the same id on every request: the last one's digest is kept.
let lastId = '';
let lastDigest = '';

export function fitIdentifier(id: string, max: number): string {
  if (id.length <= max) return id;
  if (id !== lastId) {
    lastDigest = PREFIX + createHash('sha256').update(id).digest('hex').slice(0, HEX_DIGITS);
    lastId = id;
  }
  return lastDigest.length <= max ? lastDigest : lastDigest.slice(0, max);
}
