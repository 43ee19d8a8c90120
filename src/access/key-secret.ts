// Runtime key secrets: `sk-sy-rt-` and 43 base64url characters (256 random bits). The first 16
// characters are the public prefix shown in lists and the console so a person can tell keys apart;
// the store keeps only the secret's sha256 (the same digest `switchyard hash-key` prints).
import { hash, randomBytes } from 'node:crypto';

export const SECRET_MARK = 'sk-sy-rt-';
const PREFIX_LENGTH = 16;

export function newSecret(): string {
  return SECRET_MARK + randomBytes(32).toString('base64url');
}

/** What lists may show of a secret. */
export function publicPrefix(secret: string): string {
  return secret.slice(0, PREFIX_LENGTH);
}

export function secretDigest(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/** Whether a presented key has the runtime format (only those can be runtime keys). */
export function looksLikeRuntimeKey(presented: string): boolean {
  return presented.startsWith(SECRET_MARK);
}
