// Function-call ids (gemini.md §7, mapping.md §16.4). Gemini may give a call an `id` or not (the Gemini
// API sometimes does, Vertex does not). A given id is kept (made portable, ir/tool-ids.ts); a missing one
// is synthesized as `syg_<response id>_<n>` — stable for one answer, streamed or not — and recognised on
// the way back so that no invented id is ever sent upstream.
import { randomBytes } from 'node:crypto';
import { fromCallerId, toCallerId } from '../../ir/tool-ids.js';

const SYNTHETIC = 'syg_';
const REENCODED = 'syc_';

export class GeminiCallIds {
  private readonly used = new Set<string>();
  private count = 0;
  private readonly base: string;

  constructor(responseId: string) {
    // Without a response id there is nothing stable to derive from: random, so turns never collide.
    const cleaned = responseId.replace(/[^a-zA-Z0-9_-]/g, '').slice(0, 40);
    this.base = cleaned.length > 0 ? cleaned : randomBytes(9).toString('base64url');
  }

  /** The caller-facing id of the next call of this answer. */
  next(upstreamId: unknown): string {
    const n = this.count++;
    let id: string;
    if (typeof upstreamId === 'string' && upstreamId.length > 0) {
      // An upstream id that looks like one of ours must not be mistaken for one on the way back.
      id = upstreamId.startsWith(SYNTHETIC) ? REENCODED + Buffer.from(upstreamId, 'utf8').toString('base64url') : toCallerId(upstreamId);
    } else {
      id = `${SYNTHETIC}${this.base}_${n}`;
    }
    for (let k = 1; this.used.has(id); k++) id = `${SYNTHETIC}${this.base}_${n}_${k}`;
    this.used.add(id);
    return id;
  }
}

/** Caller id → the id to send upstream, or undefined when the gateway invented it. */
export function upstreamCallId(callerId: string): string | undefined {
  if (callerId.startsWith(SYNTHETIC)) return undefined;
  return fromCallerId(callerId);
}
