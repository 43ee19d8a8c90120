// Caller-facing ids for the tool calls of one upstream response (mapping.md §6): the upstream id when
// it is present and not yet used in this response, else `call_<responseId>_<n>`; then made portable.
import { toCallerId } from '../../ir/tool-ids.js';

export class CallIdAllocator {
  private readonly used = new Set<string>();
  private count = 0;

  constructor(private readonly responseId: string) {}

  /** The caller id for the next call of this response, given the id the upstream sent (if any). */
  next(upstreamId: string | null | undefined): string {
    const n = this.count++;
    let id = typeof upstreamId === 'string' && upstreamId.length > 0 && !this.used.has(upstreamId) ? upstreamId : `call_${this.responseId}_${n}`;
    // An upstream id may already have taken the synthesized form; suffix until free.
    for (let k = 1; this.used.has(id); k++) id = `call_${this.responseId}_${n}_${k}`;
    this.used.add(id);
    return toCallerId(id);
  }
}
