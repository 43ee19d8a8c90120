// Tool-call ids that must satisfy the caller's protocol (mapping.md §6): identity when valid, else a
// deterministic reversible re-encoding, so the caller's echo of the id maps back to the upstream's id.

const ANTHROPIC_ID = /^[a-zA-Z0-9_-]+$/;
const REENCODED = 'syc_';

/** An id valid for every protocol we speak: Anthropic pattern and at most 64 characters. */
export function isPortableId(id: string): boolean {
  return id.length > 0 && id.length <= 64 && ANTHROPIC_ID.test(id);
}

/** Upstream id → caller-facing id. */
export function toCallerId(upstreamId: string): string {
  if (isPortableId(upstreamId) && !upstreamId.startsWith(REENCODED)) return upstreamId;
  return REENCODED + Buffer.from(upstreamId, 'utf8').toString('base64url');
}

/** Caller-facing id → upstream id (inverse of toCallerId). */
export function fromCallerId(callerId: string): string {
  if (!callerId.startsWith(REENCODED)) return callerId;
  return Buffer.from(callerId.slice(REENCODED.length), 'base64url').toString('utf8');
}
