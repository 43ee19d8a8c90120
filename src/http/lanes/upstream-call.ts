// Sends one upstream request with the lane's abort plumbing: the caller leaving or the total timeout
// aborts it; a non-2xx answer becomes the driver's GatewayError.
import { upstreamCredentialsRefused } from '../caller-safe-error.js';
import { AbortSwitch, type AbortWhy } from '../../drivers/abort-switch.js';
import { GatewayError } from '../../errors.js';
import type { Driver, EncodedRequest } from '../../drivers/types.js';
import { readText, transportError, type UpstreamResponse, type WholeResponse } from '../../drivers/http-client.js';
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

/** What both kinds of call share: the platform's request (signed before), the abort switch, the total-time timer. */
interface Begun {
  encoded: EncodedRequest;
  platform: Awaited<ReturnType<typeof platformRequest>> | undefined;
  abort: AbortSwitch;
  finish(): void;
}

function begin(gen: Generation, target: RouteTarget, encoded: EncodedRequest, platform: Begun['platform']): Begun {
  const rec = gen.rec;
  const provider = target.provider;
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
  return { encoded, platform, abort, finish };
}

/** A non-2xx answer as the GatewayError the caller gets. */
function upstreamFailure(begun: Begun, driver: Driver, provider: RouteTarget['provider'], status: number, headers: UpstreamResponse['headers'], text: string): GatewayError {
  // A platform's own reading of its errors is ours already (it names the provider and no secret).
  const platformErr = begun.platform && platformError(begun.platform.platform, status, headers, text);
  if (platformErr) return platformErr;
  const err = driver.decodeError(status, headers, text);
  // Our own credentials refused: never the caller's key, whatever the vendor's text and code say.
  if (status === 401 || status === 403) return upstreamCredentialsRefused(provider.name, status, err);
  return err;
}

/** An upstream stream (`stream: true` is asked of the upstream): the answer's body is read as it comes. */
export async function callUpstream(gen: Generation, target: RouteTarget, driver: Driver, encoded: EncodedRequest, stream: boolean): Promise<UpstreamCall> {
  const { ctx, rec } = gen;
  const provider = target.provider;
  // A cloud platform addresses, signs and frames the request (docs/platforms.md); first-party: as is.
  const platform = provider.platform ? await platformRequest(provider, encoded, target.model, stream, 'generate') : undefined;
  const begun = begin(gen, target, encoded, platform);
  const { abort, finish } = begun;
  let response: UpstreamResponse;
  try {
    response = await ctx.http.send(provider, { path: begun.encoded.path, headers: begun.encoded.headers, body: begun.encoded.body, signal: abort });
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
    throw upstreamFailure(begun, driver, provider, response.status, response.headers, text);
  }
  if (stream && begun.platform?.platform.streamBody) response.body = begun.platform.platform.streamBody(response.body);
  // Only an error reads the upstream's headers; a stream can run for minutes, so it does not keep them.
  response.headers = NO_HEADERS;
  return { response, abort, abortReason: () => abort.why, abortError: () => abortError(abort.why, provider.name), finish };
}

/**
 * A non-streamed upstream answer, read whole (HttpClient.sendWhole: no body stream, one settlement when
 * the answer has ended): its text, or the GatewayError of a failure. The timers are cleared when it returns.
 */
export async function callUpstreamWhole(gen: Generation, target: RouteTarget, driver: Driver, encoded: EncodedRequest): Promise<string> {
  const { ctx, rec } = gen;
  const provider = target.provider;
  const platform = provider.platform ? await platformRequest(provider, encoded, target.model, false, 'generate') : undefined;
  const begun = begin(gen, target, encoded, platform);
  let answer: WholeResponse;
  try {
    answer = await ctx.http.sendWhole(provider, { path: begun.encoded.path, headers: begun.encoded.headers, body: begun.encoded.body, signal: begun.abort }, 256 * 1024 * 1024);
  } catch (err) {
    throw abortError(begun.abort.why, provider.name) ?? transportError(err, provider.name);
  } finally {
    begun.finish();
  }
  rec.tUpstreamHeaders = answer.headersAt;
  if (answer.status < 200 || answer.status >= 300) throw upstreamFailure(begun, driver, provider, answer.status, answer.headers, answer.text);
  return answer.text;
}

/** A shutdown cut is `overloaded` (529 / 503, `overloaded_error` / `server_is_overloaded`): every
 * client retries it, and another instance will answer. */
function abortError(why: AbortWhy | undefined, providerName: string): GatewayError | undefined {
  if (why === 'timeout') return new GatewayError('timeout', `upstream ${providerName} exceeded its total time limit`);
  if (why === 'shutdown') return new GatewayError('overloaded', 'the gateway instance is shutting down; retry the request');
  return undefined;
}
