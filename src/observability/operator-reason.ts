// What the operator's log says about a failure: the gateway's message and, when the caller got a fixed
// text in its place (an upstream that refused the gateway's credentials), the upstream's own words too.
// As it is written, the logger's masker takes out secrets first (before any cut, so no part of a secret
// survives one), then text a vendor quoted back (which may be the caller's prompt) is elided and the whole
// is bounded (loggedReason).
import { GatewayError } from '../errors.js';

/** Longest reason in a log line. */
export const MAX_REASON_LENGTH = 300;
/** Quoted spans up to this long stay (field names, enum values, model ids); longer ones are elided. */
export const MAX_QUOTED_LENGTH = 48;

const QUOTED = /"[^"\n]*"|'[^'\n]*'|`[^`\n]*`|“[^”\n]*”/g;

/** The failure in the operator's words, raw (loggedReason masks and bounds it). */
export function operatorReason(err: GatewayError): string {
  const cause = err.cause;
  // upstreamCredentialsRefused keeps the vendor's error as its cause: the caller is told less than the operator.
  if (cause instanceof GatewayError && cause.message !== '' && !err.message.includes(cause.message)) {
    return err.message + ' — upstream said: ' + cause.message;
  }
  return err.message;
}

/** Masked, long quoted spans replaced by their length, control characters by spaces, cut to MAX_REASON_LENGTH. */
export function loggedReason(text: string, mask: (text: string) => string): string {
  let out = mask(text).replace(QUOTED, (span) => (span.length - 2 > MAX_QUOTED_LENGTH ? `${span[0]}[${span.length - 2} characters]${span[span.length - 1]}` : span));
  // eslint-disable-next-line no-control-regex
  out = out.replace(/[\u0000-\u001f\u007f]+/g, ' ');
  return out.length > MAX_REASON_LENGTH ? out.slice(0, MAX_REASON_LENGTH) + '…' : out;
}
