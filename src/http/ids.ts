// Identifiers the gateway owns (request ids, msg_/resp_ ids): a random per-process prefix and a
// counter. Unique per process (and across workers, by the prefix) without a crypto call per request.
import { randomBytes } from 'node:crypto';

const PREFIX = randomBytes(9).toString('base64url').replace(/[-_]/g, 'x');
let counter = 0;

export function newId(kind: string): string {
  counter = (counter + 1) % 0x7fffffff;
  return kind + PREFIX + counter.toString(36).padStart(6, '0');
}
