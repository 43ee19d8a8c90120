// Sends one upstream request with the lane's abort plumbing: the caller leaving or the total timeout
// aborts it; a non-2xx answer becomes the driver's GatewayError.
import { upstreamCredentialsRefused } from '../caller-safe-error.js';
import { AbortSwitch, type AbortWhy } from '../../drivers/abort-switch.js';
import { GatewayError } from '../../errors.js';
import type { Driver, EncodedRequest } from '../../drivers/types.js';
import { readText, transportError, type UpstreamResponse } from '../../drivers/http-client.js';
import type { RouteTarget } from '../../router/model-table.js';
import { platformRequest, platformError } from '../../platforms/send.js';
import type { Generation } from '../generation.js';

export interface UpstreamCall {
  response: UpstreamResponse;
  /** Aborts the upstream request (a lane that gives up on the answer). */
  abort: AbortSwitch;
  /** Why the upstream request was aborted, if it was. */
  abortReason(): AbortWhy | undefined;
  /** The caller's error for an abort by the total timeout or the shutdown deadline (else undefined). */
  abortError(): GatewayError | undefined;
  /** Clears the timers; call when the upstream body is done. */
  finish(): void;
}

const NO_HEADERS: UpstreamResponse['headers'] = Object.freeze({});

/** `stream`: whether the upstream request asks for a stream (the caller's choice on pass-through; the
 * lane's on translation). */
export async function callUpstream(gen: Generation, target: RouteTarget, driver: Driver, encoded: EncodedRequest, stream: boolean): Promise<UpstreamCall> {
  const { ctx, rec } = gen;
  const provider = target.provider;
  // A cloud platform addresses, signs and frames the request (docs/platforms.md); first-party: as is.
  const platform = provider.platform ? await platformRequest(provider, encoded, target.model, stream, 'generate') : undefined;
  if (platform) encoded = platform.request;
  // The caller leaving aborts it too: the route's close handler reaches it through gen.upstreamAbort.
  const abort = new AbortSwitch();
  gen.upstreamAbort = abort;
  if (gen.clientGone.signal.aborted) abort.abort('client');
  else if (gen.shutdownCut) abort.abort('shutdown');
  const total = setTimeout(() => abort.abort('timeout'), provider.timeouts.totalMs);
  total.unref();
  const finish = () => {
    clearTimeout(total);
    if (gen.upstreamAbort === abort) gen.upstreamAbort = undefined;
    if (rec.tUpstreamEnd === 0) rec.tUpstreamEnd = performance.now();
  };
  rec.tUpstreamSent = performance.now();
  rec.tUpstreamHeaders = 0;
  rec.tUpstreamFirstByte = 0;
  rec.tUpstreamEnd = 0;
  let response: UpstreamResponse;
  try {
    response = await ctx.http.send(provider, { path: encoded.path, headers: encoded.headers, body: encoded.body, signal: abort });
  } catch (err) {
    finish();
    throw abortError(abort.why, provider.name) ?? transportError(err, provider.name);
  }
  rec.tUpstreamHeaders = performance.now();
  if (response.status < 200 || response.status >= 300) {
    let text = '';
    try {
      text = await readText(response.body, 256 * 1024);
    } catch {
      // the status alone will do
    }
    finish();
    // A platform's own reading of its errors is ours already (it names the provider and no secret).
    const platformErr = platform && platformError(platform.platform, response.status, response.headers, text);
    if (platformErr) throw platformErr;
    const err = driver.decodeError(response.status, response.headers, text);
    // Our own credentials refused: never the caller's key, whatever the vendor's text and code say.
    if (response.status === 401 || response.status === 403) throw upstreamCredentialsRefused(provider.name, response.status, err);
    throw err;
  }
  if (stream && platform?.platform.streamBody) response.body = platform.platform.streamBody(response.body);
  // Only an error reads the upstream's headers; a stream can run for minutes, so it does not keep them.
  response.headers = NO_HEADERS;
  return { response, abort, abortReason: () => abort.why, abortError: () => abortError(abort.why, provider.name), finish };
}

/** A shutdown cut is `overloaded` (529 / 503, `overloaded_error` / `server_is_overloaded`): every
 * client retries it, and another instance will answer. */
function abortError(why: AbortWhy | undefined, providerName: string): GatewayError | undefined {
  if (why === 'timeout') return new GatewayError('timeout', `upstream ${providerName} exceeded its total time limit`);
  if (why === 'shutdown') return new GatewayError('overloaded', 'the gateway instance is shutting down; retry the request');
  return undefined;
}
