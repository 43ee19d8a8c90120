// Sends one upstream request with the lane's abort plumbing: the caller leaving or the total timeout
// aborts it; a non-2xx answer becomes the driver's GatewayError.
import { GatewayError } from '../../errors.js';
import type { Driver, EncodedRequest } from '../../drivers/types.js';
import { readText, transportError, type UpstreamResponse } from '../../drivers/http-client.js';
import type { RouteTarget } from '../../router/model-table.js';
import type { Generation } from '../generation.js';

export interface UpstreamCall {
  response: UpstreamResponse;
  abort: AbortController;
  /** Why the upstream request was aborted, if it was. */
  abortReason(): 'client' | 'timeout' | undefined;
  /** Clears the timers; call when the upstream body is done. */
  finish(): void;
}

const NO_HEADERS: UpstreamResponse['headers'] = Object.freeze({});

export async function callUpstream(gen: Generation, target: RouteTarget, driver: Driver, encoded: EncodedRequest): Promise<UpstreamCall> {
  const { ctx, rec } = gen;
  const provider = target.provider;
  const abort = new AbortController();
  let reason: 'client' | 'timeout' | undefined;
  const onClientGone = () => {
    reason ??= 'client';
    abort.abort();
  };
  gen.clientGone.signal.addEventListener('abort', onClientGone, { once: true });
  const total = setTimeout(() => {
    reason ??= 'timeout';
    abort.abort();
  }, provider.timeouts.totalMs);
  total.unref();
  const finish = () => {
    clearTimeout(total);
    gen.clientGone.signal.removeEventListener('abort', onClientGone);
    if (rec.tUpstreamEnd === 0) rec.tUpstreamEnd = performance.now();
  };
  rec.tUpstreamSent = performance.now();
  rec.tUpstreamHeaders = 0;
  rec.tUpstreamFirstByte = 0;
  rec.tUpstreamEnd = 0;
  let response: UpstreamResponse;
  try {
    response = await ctx.http.send(provider, { path: encoded.path, headers: encoded.headers, body: encoded.body, signal: abort.signal });
  } catch (err) {
    finish();
    if (reason === 'timeout') throw new GatewayError('timeout', `upstream ${provider.name} exceeded its total time limit`);
    throw transportError(err, provider.name);
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
    throw driver.decodeError(response.status, response.headers, text);
  }
  // Only an error reads the upstream's headers; a stream can run for minutes, so it does not keep them.
  response.headers = NO_HEADERS;
  return { response, abort, abortReason: () => reason, finish };
}
