// The upstream side of the media-URL rule (ir/media-url.ts): before an attempt encodes anything, every
// URL-sourced part of the request must be allowed for the target's provider. The door checked the
// union of every provider's prefixes; this narrows it to the one that will fetch the URL, and covers
// what no door decoded just now (a stored conversation continued with previous_response_id).
import type { ProviderConfig } from '../../config/types.js';
import { GatewayError } from '../../errors.js';
import { refusedMediaUrl } from '../../ir/media-url.js';
import type { IrRequest } from '../../ir/types.js';

export function assertTargetTakesMediaUrls(ir: IrRequest, provider: ProviderConfig): void {
  const refused = refusedMediaUrl(ir, provider.mediaUrls);
  if (refused === undefined) return;
  throw new GatewayError('invalid_request', `a media URL in the request (${refused.where}) cannot be sent to this model: ${refused.why}`, {
    code: 'invalid_value',
  });
}
