// The vendors' rate-limit headers, from what admission saw, so clients that pace themselves on them
// (the SDKs, Claude Code, Codex) do so through the gateway. Of several limits of one kind (key and
// team), the one with the least room left is reported, as the vendors report the most restrictive.
// - Messages (messages.md §14): anthropic-ratelimit-{requests,tokens}-{limit,remaining,reset}, reset
//   as RFC 3339. Our token limit counts input + output together, so the input-/output-tokens
//   variants are not sent: they would claim a split the gateway does not enforce.
// - Responses and Chat Completions (responses.md §2): x-ratelimit-{limit,remaining,reset}-{requests,tokens}, reset as a
//   duration (`1s`, `6m0s`, `250ms`).
// - Gemini: Google sends no such headers (a refusal's delay is in its body's RetryInfo); the door gets
//   the x-ratelimit-* set, which costs a Gemini client nothing and tells an operator the room left.
import type { GenerationDoor } from '../codecs/doors.js';
import type { CheckState } from '../state/types.js';
import { MINUTE_MS, type CheckMeta } from './admission-plan.js';

export type Door = GenerationDoor;

interface Room {
  limit: number;
  remaining: number;
  resetMs: number;
}

/**
 * `admitted`: the request was let in, so its request cost (1) is already recorded in rpm windows.
 * Returns an empty object when the caller has neither rpm nor tpm limits.
 */
export function rateLimitHeaders(door: Door, meta: readonly CheckMeta[], states: readonly CheckState[], nowMs: number, admitted: boolean): Record<string, string> {
  let requests: Room | undefined;
  let tokens: Room | undefined;
  for (let i = 0; i < meta.length; i++) {
    const m = meta[i]!;
    const s = states[i];
    if (s === undefined || (m.limit !== 'rpm' && m.limit !== 'tpm')) continue;
    const recorded = admitted && m.limit === 'rpm' ? 1 : 0;
    const room: Room = {
      limit: s.limit,
      remaining: Math.max(0, s.limit - s.used - recorded),
      // A window that was empty fills up with this request's entry: it leaves a minute from now.
      resetMs: s.resetMs > 0 ? s.resetMs : recorded > 0 ? MINUTE_MS : 0,
    };
    if (m.limit === 'rpm') requests = tighter(requests, room);
    else tokens = tighter(tokens, room);
  }
  const headers: Record<string, string> = {};
  if (door === 'messages') {
    if (requests) put(headers, 'anthropic-ratelimit-requests-', requests, rfc3339(nowMs + requests.resetMs));
    if (tokens) put(headers, 'anthropic-ratelimit-tokens-', tokens, rfc3339(nowMs + tokens.resetMs));
  } else {
    if (requests) {
      headers['x-ratelimit-limit-requests'] = String(requests.limit);
      headers['x-ratelimit-remaining-requests'] = String(requests.remaining);
      headers['x-ratelimit-reset-requests'] = openAiDuration(requests.resetMs);
    }
    if (tokens) {
      headers['x-ratelimit-limit-tokens'] = String(tokens.limit);
      headers['x-ratelimit-remaining-tokens'] = String(tokens.remaining);
      headers['x-ratelimit-reset-tokens'] = openAiDuration(tokens.resetMs);
    }
  }
  return headers;
}

function tighter(a: Room | undefined, b: Room): Room {
  if (a === undefined) return b;
  if (b.remaining !== a.remaining) return b.remaining < a.remaining ? b : a;
  return b.resetMs > a.resetMs ? b : a;
}

function put(headers: Record<string, string>, prefix: string, room: Room, reset: string): void {
  headers[prefix + 'limit'] = String(room.limit);
  headers[prefix + 'remaining'] = String(room.remaining);
  headers[prefix + 'reset'] = reset;
}

// The last two seconds formatted: the limited requests of a second ask for the same ones (the requests
// reset and the tokens reset); a Date, toISOString and replace were ~3 µs per request.
const seconds = [NaN, NaN];
const texts = ['', ''];
let older = 0;

/** RFC 3339 in UTC, whole seconds (as Anthropic sends it), rounded up so "reset" is never early. */
export function rfc3339(ms: number): string {
  const second = Math.ceil(ms / 1000);
  if (second === seconds[0]) return texts[0]!;
  if (second === seconds[1]) return texts[1]!;
  const slot = older;
  older = 1 - older;
  seconds[slot] = second;
  texts[slot] = new Date(second * 1000).toISOString().replace('.000Z', 'Z');
  return texts[slot]!;
}

/** OpenAI's reset duration: `250ms` under a second, else Go-style `1h2m3s` / `6m0s` / `1.5s`. */
export function openAiDuration(ms: number): string {
  const total = Math.max(0, Math.ceil(ms));
  if (total < 1000) return `${total}ms`;
  const h = Math.floor(total / 3_600_000);
  const m = Math.floor((total % 3_600_000) / 60_000);
  const sMs = total % 60_000;
  // Seconds with up to three decimals, trailing zeros dropped (Go prints 1.5s, not 1.500s).
  const s = (sMs / 1000).toFixed(3).replace(/\.?0+$/, '');
  if (h > 0) return `${h}h${m}m${s}s`;
  if (m > 0) return `${m}m${s}s`;
  return `${s}s`;
}
