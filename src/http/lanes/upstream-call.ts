// Sends one upstream request with the lane's abort plumbing: the caller leaving or the total timeout
// aborts it; a non-2xx answer becomes the driver's GatewayError.
import { refusesGatewayCredentials, upstreamCredentialsRefused } from '../caller-safe-error.js';
import { AbortSwitch, type AbortWhy } from '../../drivers/abort-switch.js';
import { GatewayError } from '../../errors.js';
import type { Driver, EncodedRequest } from '../../drivers/types.js';
import { readText, transportError, type UpstreamResponse, type WholeResponse } from '../../drivers/http-client.js';
import type { RouteTarget } from '../../router/model-table.js';
import { platformRequest, platformError, type PreparedCall } from '../../platforms/send.js';
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
  platform: PreparedCall | undefined;
  abort: AbortSwitch;
  finish(): void;
}

/**
 * The attempt's abort switch and total-time timer, armed before anything the attempt waits for (the
 * platform's signing or token fetch included), then the platform's request raced against them: a
 * credential source that does not answer ends as this attempt's failure (the total timeout, the
 * caller leaving, the drain's cut), so the router falls back, the circuit counts it, and the request's
 * lease and in-flight entry come back.
 */
async function begin(gen: Generation, target: RouteTarget, encoded: EncodedRequest, stream: boolean): Promise<Begun> {
  const rec = gen.rec;
  const provider = target.provider;
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
  let platform: PreparedCall | undefined;
  if (provider.platform) {
    // A cloud platform addresses, signs and frames the request (docs/platforms.md); first-party: as is.
    try {
      platform = await untilAborted(platformRequest(provider, encoded, target.model, stream, 'generate'), abort);
    } catch (err) {
      finish();
      throw err === PREPARE_ABORTED ? (abortError(abort.why, provider.name, 'prepare') ?? callerLeft(provider.name)) : err;
    }
    encoded = platform.request;
  }
  rec.tUpstreamSent = performance.now();
  rec.tUpstreamHeaders = 0;
  rec.tUpstreamFirstByte = 0;
  rec.tUpstreamEnd = 0;
  return { encoded, platform, abort, finish };
}

const PREPARE_ABORTED = Symbol('prepare aborted');

/** `work`, or PREPARE_ABORTED as soon as the switch is thrown (what `work` does later is ignored). The
 * switch holds one listener: this one, removed before undici takes its place. */
function untilAborted<T>(work: Promise<T>, abort: AbortSwitch): Promise<T> {
  if (abort.aborted) {
    work.catch(() => undefined);
    return Promise.reject(PREPARE_ABORTED);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(PREPARE_ABORTED);
    abort.once('abort', onAbort);
    work.then(
      (value) => {
        abort.removeListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        abort.removeListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/** A non-2xx answer as the GatewayError the caller gets. */
function upstreamFailure(gen: Generation, begun: Begun, driver: Driver, provider: RouteTarget['provider'], status: number, headers: UpstreamResponse['headers'], text: string): GatewayError {
  const platformErr = begun.platform && platformError(begun.platform.platform, status, headers, text);
  const err = platformErr ?? driver.decodeError(status, headers, text);
  if (!refusesGatewayCredentials(status, err)) return err;
  // Our own credentials refused: never the caller's key, nor the vendor's text (it may name a project,
  // a resource path, a principal), whatever its code says. The operator's log gets the vendor's text.
  gen.ctx.logger.warn({ requestId: gen.requestId, provider: provider.name, upstreamStatus: status, err: gen.ctx.obs.safeError(err) }, "upstream refused the gateway's credentials");
  // A platform's own credentials error is fixed text already (platforms/types.ts).
  return platformErr?.kind === 'bad_gateway' ? platformErr : upstreamCredentialsRefused(provider.name, status, err);
}

/** An upstream stream (`stream: true` is asked of the upstream): the answer's body is read as it comes. */
export async function callUpstream(gen: Generation, target: RouteTarget, driver: Driver, encoded: EncodedRequest, stream: boolean): Promise<UpstreamCall> {
  const { ctx, rec } = gen;
  const provider = target.provider;
  const begun = await begin(gen, target, encoded, stream);
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
    throw upstreamFailure(gen, begun, driver, provider, response.status, response.headers, text);
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
  const begun = await begin(gen, target, encoded, false);
  let answer: WholeResponse;
  try {
    answer = await ctx.http.sendWhole(provider, { path: begun.encoded.path, headers: begun.encoded.headers, body: begun.encoded.body, signal: begun.abort }, 256 * 1024 * 1024);
  } catch (err) {
    throw abortError(begun.abort.why, provider.name) ?? transportError(err, provider.name);
  } finally {
    begun.finish();
  }
  rec.tUpstreamHeaders = answer.headersAt;
  if (answer.status < 200 || answer.status >= 300) throw upstreamFailure(gen, begun, driver, provider, answer.status, answer.headers, answer.text);
  return answer.text;
}

/** A shutdown cut is `overloaded` (529 / 503, `overloaded_error` / `server_is_overloaded`): every
 * client retries it, and another instance will answer. */
function abortError(why: AbortWhy | undefined, providerName: string, phase: 'prepare' | 'send' = 'send'): GatewayError | undefined {
  if (why === 'timeout') {
    return new GatewayError('timeout', phase === 'prepare' ? `upstream ${providerName}: its credentials were not ready within its total time limit` : `upstream ${providerName} exceeded its total time limit`);
  }
  if (why === 'shutdown') return new GatewayError('overloaded', 'the gateway instance is shutting down; retry the request');
  return undefined;
}

/** The caller left while the credentials were awaited: nobody reads this, the record keeps it. */
function callerLeft(providerName: string): GatewayError {
  return new GatewayError('timeout', `upstream ${providerName}: the caller left while its credentials were awaited`);
}
