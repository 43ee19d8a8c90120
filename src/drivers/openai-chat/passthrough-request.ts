// The pass-through lane's upstream request for a Chat Completions caller (drivers/passthrough-body.ts):
// the caller's body with the model spliced in. A streamed request always asks for the usage chunk
// (`stream_options.include_usage`), as the gateway's accounting needs usage; the relay drops that
// chunk again when the caller did not ask for it (http/lanes/chat-relay.ts).
import { openaiHeaders } from '../openai-headers.js';
import { passthroughBody } from '../passthrough-body.js';
import type { DriverTarget, EncodedRequest, PassthroughSettings } from '../types.js';

const INCLUDE_USAGE = '"stream_options":{"include_usage":true}';

export function chatPassthroughRequest(
  callerBody: Record<string, unknown>,
  target: DriverTarget,
  defaults: PassthroughSettings,
  overrides: PassthroughSettings,
): EncodedRequest {
  const fields = { maxTokens: target.options.maxTokensField, effortParent: undefined };
  let body: string;
  const options = callerBody.stream_options as { include_usage?: unknown } | null | undefined;
  if (callerBody.stream !== true || options?.include_usage === true) {
    body = passthroughBody(callerBody, target.model, defaults, overrides, fields);
  } else if (options == null && !('stream_options' in callerBody)) {
    // The caller's text stays as sent; the one member the gateway needs goes in front.
    const text = passthroughBody(callerBody, target.model, defaults, overrides, fields);
    const open = text.indexOf('{');
    body = text.slice(0, open + 1) + INCLUDE_USAGE + ',' + text.slice(open + 1);
  } else {
    body = passthroughBody({ ...callerBody, stream_options: { ...(options ?? {}), include_usage: true } }, target.model, defaults, overrides, fields);
  }
  return { path: '/chat/completions', headers: openaiHeaders(target), body };
}
