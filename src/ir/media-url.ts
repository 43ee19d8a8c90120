// The one rule for media URLs: an image or document a caller names by address instead of sending its
// bytes, on every front door and toward every upstream (docs/security.md "Media URLs").
//
// Why: the upstream fetches such a URL itself, with its own identity. For a `gs://` URI on Vertex AI
// that identity is the gateway's Google service account, so a tenant could have the operator's storage
// read for it (a confused deputy). Public `https:` URLs are fetched as anyone could fetch them.
//
// The rule: a media URL is allowed when
//   - its scheme is `https` (written `https://…`, any case), or
//   - it is a `data:` URL (inline bytes: nothing is fetched), or
//   - it starts with one of the prefixes the operator allowed (`providers.<name>.media_url_prefixes`,
//     e.g. `gs://acme-public-assets/`): the scheme is compared in any case, the rest exactly, and the
//     part after the prefix may hold no dot segment, backslash, percent-escaped dot, slash or backslash,
//     whitespace or control character, so no server's path normalisation can step out of the prefix.
// Everything else is refused (`http:`, `gs:`, `s3:`, `file:`, a relative or malformed URL).
//
// Contract for door authors (codecs/<door>/decode-*.ts):
//   - call `mediaUrlRefusal(url, rule)` for every URL-sourced image, file, document or audio part,
//     AFTER turning a `data:` URL into base64 bytes if the door does that;
//   - on a refusal, throw `GatewayError('invalid_request', …, { param, code: 'invalid_value' })` naming
//     the caller's field (e.g. `messages.0.content.1.source.url`), with the refusal text in the message;
//   - `rule` is the door's rule, handed to `decodeRequest(body, warnings, rule)` by the route (the union
//     of every provider's prefixes: a URL no provider allows never passes a door). Default: HTTPS_ONLY.
// Upstream side: `http/lanes` checks the IR of every attempt against the target provider's own rule
// (`refusedMediaUrl`), and drivers that hand a URL to a fetching upstream (Gemini `fileData.fileUri`)
// check it again with `DriverTarget.mediaUrls`. Pure: no I/O; imports only the IR types.
import type { IrRequest, MediaSource } from './types.js';

export interface MediaUrlRule {
  /** Prefixes beyond `https:` and `data:`, their scheme lower-cased, each ending in `/`. */
  readonly prefixes: readonly string[];
}

/** The default everywhere: `https:` and `data:` only. */
export const HTTPS_ONLY: MediaUrlRule = Object.freeze({ prefixes: Object.freeze([]) as readonly string[] });

/** Only for re-reading what a door already checked (a stored request decoded again): every attempt's
 * upstream check still applies the target's rule. */
export const ALREADY_CHECKED: MediaUrlRule = Object.freeze({ prefixes: Object.freeze([]) as readonly string[] });

/** Characters after an operator prefix that could step out of it once a server normalises the path. */
const ESCAPES_PREFIX = /\.\.|\\|%2e|%2f|%5c|[\s\u0000-\u001f\u007f]/i;

/** Undefined when `url` is allowed; otherwise why not, in words fit for the caller (names the scheme,
 * never echoes the URL). */
export function mediaUrlRefusal(url: string, rule: MediaUrlRule): string | undefined {
  if (rule === ALREADY_CHECKED) return undefined;
  // The common case first, without allocating.
  if (url.length > 8 && url.charCodeAt(5) === 58 /* : */ && url.slice(0, 8).toLowerCase() === 'https://') return undefined;
  if (url.length >= 5 && url.slice(0, 5).toLowerCase() === 'data:') return undefined;
  const colon = url.indexOf(':');
  const scheme = colon > 0 && /^[A-Za-z][A-Za-z0-9+.-]*$/.test(url.slice(0, colon)) ? url.slice(0, colon).toLowerCase() : undefined;
  if (scheme !== undefined && rule.prefixes.length > 0) {
    const normalised = scheme + url.slice(colon);
    for (const prefix of rule.prefixes) {
      if (normalised.startsWith(prefix) && !ESCAPES_PREFIX.test(normalised.slice(prefix.length))) return undefined;
    }
  }
  const what = scheme === undefined ? 'a URL without a scheme' : scheme === 'https' ? 'a malformed https URL' : `a ${shortScheme(scheme)}: URL`;
  const beyond = rule.prefixes.length > 0 ? ' or under a prefix this gateway allows' : '';
  return `media URLs must be https:// (or data:) URLs${beyond}; got ${what}`;
}

/** A scheme as a bounded, printable word (it comes from the caller). */
function shortScheme(scheme: string): string {
  return scheme.length <= 16 ? scheme : scheme.slice(0, 16) + '…';
}

/** Where in the IR a refused URL sits, for a message that names it without a wire field. */
export interface RefusedMediaUrl {
  /** e.g. `turns.2.parts.0` or `turns.3.parts.1.content.0`. */
  where: string;
  why: string;
}

/** The first URL-sourced part of `req` that `rule` refuses, or undefined. One pass over the user
 * turns' parts (assistant turns carry no media); no allocation when every URL is allowed. */
export function refusedMediaUrl(req: IrRequest, rule: MediaUrlRule): RefusedMediaUrl | undefined {
  const turns = req.turns;
  for (let t = 0; t < turns.length; t++) {
    const turn = turns[t]!;
    if (turn.role !== 'user') continue;
    const parts = turn.parts;
    for (let p = 0; p < parts.length; p++) {
      const part = parts[p]!;
      if (part.type === 'image' || part.type === 'file') {
        const why = sourceRefusal(part.source, rule);
        if (why !== undefined) return { where: `turns.${t}.parts.${p}`, why };
      } else if (part.type === 'tool-result') {
        for (let c = 0; c < part.content.length; c++) {
          const item = part.content[c]!;
          if (item.type === 'text') continue;
          const why = sourceRefusal(item.source, rule);
          if (why !== undefined) return { where: `turns.${t}.parts.${p}.content.${c}`, why };
        }
      }
    }
  }
  return undefined;
}

function sourceRefusal(source: MediaSource | { kind: 'text' }, rule: MediaUrlRule): string | undefined {
  return source.kind === 'url' ? mediaUrlRefusal(source.url, rule) : undefined;
}

/** The rule for a list of operator prefixes as written in the config (already validated: a scheme,
 * `://`, ending in `/`): scheme lower-cased, duplicates dropped. */
export function mediaUrlRule(prefixes: readonly string[]): MediaUrlRule {
  if (prefixes.length === 0) return HTTPS_ONLY;
  const out = new Set<string>();
  for (const p of prefixes) {
    const colon = p.indexOf(':');
    out.add(p.slice(0, colon).toLowerCase() + p.slice(colon));
  }
  return Object.freeze({ prefixes: Object.freeze([...out]) });
}

/** The union of several rules (a door accepts what at least one provider allows). */
export function unionOfRules(rules: Iterable<MediaUrlRule>): MediaUrlRule {
  const all: string[] = [];
  for (const r of rules) all.push(...r.prefixes);
  return mediaUrlRule(all);
}
