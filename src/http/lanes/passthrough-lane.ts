// Pass-through lane: the caller's protocol is the upstream's. The body is forwarded with only the
// model replaced; the answer is relayed as it arrives (unknown fields and event types survive), with
// a tap for usage, finish and errors. The fast path and the lossless one.
import { driverFor } from '../../drivers/registry.js';
import type { Driver } from '../../drivers/types.js';
import { GatewayError } from '../../errors.js';
import { driverTarget } from '../../router/driver-target.js';
import type { RouteTarget } from '../../router/model-table.js';
import type { Generation } from '../generation.js';
import { ChatRelay } from './chat-relay.js';
import { MessagesRelay } from './messages-relay.js';
import type { Relay } from './relay.js';
import { ResponsesRelay } from './responses-relay.js';
import { GeminiRelay } from './gemini-relay.js';
import { streamFormOf } from '../../codecs/gemini/index.js';
import { relayStream } from './passthrough-stream.js';
import { assertTargetTakesMediaUrls } from './media-url-check.js';
import { callUpstream, callUpstreamWhole } from './upstream-call.js';
import { continuationBody } from './passthrough-body.js';
import { factsOf, storedAnswer } from '../stored-answer.js';

/** The relay of each front-door protocol; failure frames classified by the upstream's driver. */
const RELAYS: Record<Generation['codec']['protocol'], (gen: Generation, rewriteModel: boolean, driver: Driver) => Relay> = {
  messages: (gen, rewrite, driver) =>
    new MessagesRelay(gen.rec, gen.ir.model, rewrite, (err) => gen.codec.encodeError(err, gen.requestId).body, driver.decodeStreamError, maskFor(gen)),
  responses: (gen, rewrite, driver) => new ResponsesRelay(gen.rec, gen.ir.model, rewrite, driver.decodeStreamError, maskFor(gen)),
  chat: (gen, rewrite, driver) =>
    new ChatRelay(gen.rec, gen.ir.model, rewrite, gen.ir.streamUsage === true, (err) => gen.codec.encodeError(err, gen.requestId).body, driver.decodeStreamError, maskFor(gen)),
  // The model is in the path: the chunks' `modelVersion` is the upstream's and stays as it came.
  gemini: (gen, _rewrite, driver) => new GeminiRelay(gen.rec, streamFormOf(gen.codec), driver.decodeStreamError, maskFor(gen)),
};

function maskFor(gen: Generation): (text: string) => string {
  const obs = gen.ctx.obs;
  return (text) => obs.redact(text);
}

export async function runPassthroughLane(gen: Generation, target: RouteTarget): Promise<void> {
  const provider = target.provider;
  const protocol = gen.codec.protocol;
  const driver = driverFor(protocol);
  if (!driver.passthroughRequest) throw new GatewayError('api_error', `no pass-through for ${protocol}`);
  assertTargetTakesMediaUrls(gen.ir, provider);
  // Nothing is translated here, so nothing is lost: decode-time warnings do not apply.
  gen.warnings = [];
  gen.rec.warnings = gen.warnings;
  const settings = target.target;
  const encoded = driver.passthroughRequest(
    continuationBody(forwardedBody(gen, target), gen.previous, target),
    driverTarget(provider, target.model, driver.forwardedHeaders(gen.headers, protocol)),
    settings.defaults,
    settings.overrides,
    gen.ir.stream,
  );
  const rec = gen.rec;
  if (!gen.ir.stream) {
    const upstreamText = await callUpstreamWhole(gen, target, driver, encoded);
    const relay = RELAYS[protocol](gen, target.model !== gen.ir.model, driver);
    let obj: Record<string, unknown>;
    try {
      obj = JSON.parse(upstreamText) as Record<string, unknown>;
    } catch {
      throw new GatewayError('api_error', `upstream ${provider.name} sent a malformed body`);
    }
    const text = relay.result(upstreamText, obj);
    gen.commit();
    rec.status = 200;
    // A stored answer's text is encoded once: the caller gets the bytes the record copies.
    const keep = gen.keepsAnswer && obj.status !== 'failed';
    const sent = keep ? Buffer.from(text) : text;
    gen.transport.sendJson(gen.baseHeaders(target), sent);
    // `obj` is the answer as sent (relay.result rewrote its model in place when it had to).
    if (keep) keepAnswer(gen, target, obj, sent);
    return;
  }

  const call = await callUpstream(gen, target, driver, encoded, true);
  const relay = RELAYS[protocol](gen, target.model !== gen.ir.model, driver);
  return relayStream(gen, target, call, relay, () => {
    if (relay.finalResponse && gen.keepsAnswer) keepAnswer(gen, target, relay.finalResponse);
  });
}

/** Saves a Responses answer after the caller's last byte; its IR parts are decoded from the response when
 * read (stored-response.ts), so a continuation on another protocol can carry this answer too. */
function keepAnswer(gen: Generation, target: RouteTarget, response: Record<string, unknown>, sentText?: string | Buffer): void {
  const id = typeof response.id === 'string' ? response.id : gen.responseId;
  gen.transport.keepAnswer(gen.ctx.saver, id, gen.requestId, gen.storesAnswer, () =>
    storedAnswer(gen, target, factsOf(gen, response), undefined, sentText ?? JSON.stringify(response)),
  );
}

/** The caller's references as they were for the OpenAI deployment that produced every item they name. */
function forwardedBody(gen: Generation, target: RouteTarget): Record<string, unknown> {
  return gen.callerBody !== gen.body && gen.references?.allProducedBy(target) ? gen.callerBody : gen.body;
}
