// Pass-through lane: the caller's protocol is the upstream's. The body is forwarded with only the
// model replaced; the answer is relayed as it arrives (unknown fields and event types survive), with
// a tap for usage, finish and errors. The fast path and the lossless one.
import { driverFor } from '../../drivers/registry.js';
import { readText, transportError } from '../../drivers/http-client.js';
import { SseParser } from '../../drivers/sse-parser.js';
import { looksLikeJsonObject, malformedFrameMessage } from '../../drivers/stream-frame.js';
import type { Driver } from '../../drivers/types.js';
import { GatewayError } from '../../errors.js';
import { driverTarget } from '../../router/driver-target.js';
import type { RouteTarget } from '../../router/model-table.js';
import type { Generation } from '../generation.js';
import { SseReply } from '../sse-reply.js';
import { MessagesRelay } from './messages-relay.js';
import type { Relay } from './relay.js';
import { ResponsesRelay } from './responses-relay.js';
import { callUpstream } from './upstream-call.js';
import { continuationBody } from './passthrough-body.js';
import { keepsAnswer, storedAnswer } from '../stored-answer.js';

/** The relay of each front-door protocol; failure frames classified by the upstream's driver. */
const RELAYS: Record<Generation['codec']['protocol'], (gen: Generation, rewriteModel: boolean, driver: Driver) => Relay> = {
  messages: (gen, rewrite, driver) =>
    new MessagesRelay(gen.rec, gen.ir.model, rewrite, (err) => gen.codec.encodeError(err, gen.requestId).body, driver.decodeStreamError),
  responses: (gen, rewrite, driver) => new ResponsesRelay(gen.rec, gen.ir.model, rewrite, driver.decodeStreamError),
};

export async function runPassthroughLane(gen: Generation, target: RouteTarget): Promise<void> {
  const provider = target.provider;
  const protocol = gen.codec.protocol;
  const driver = driverFor(protocol);
  if (!driver.passthroughRequest) throw new GatewayError('api_error', `no pass-through for ${protocol}`);
  // Nothing is translated here, so nothing is lost: decode-time warnings do not apply.
  gen.warnings = [];
  gen.rec.warnings = gen.warnings;
  const settings = target.target;
  const encoded = driver.passthroughRequest(
    continuationBody(forwardedBody(gen, target), gen.previous, target),
    driverTarget(provider, target.model, driver.forwardedHeaders(gen.request.headers, protocol)),
    settings.defaults,
    settings.overrides,
  );
  const call = await callUpstream(gen, target, driver, encoded);
  const { response } = call;
  const rec = gen.rec;
  const relay = RELAYS[protocol](gen, target.model !== gen.ir.model, driver);

  if (!gen.ir.stream) {
    let text: string;
    let obj: Record<string, unknown>;
    try {
      text = await readText(response.body, 256 * 1024 * 1024);
      obj = JSON.parse(text) as Record<string, unknown>;
    } catch (err) {
      throw err instanceof SyntaxError ? new GatewayError('api_error', `upstream ${provider.name} sent a malformed body`) : transportError(err, provider.name);
    } finally {
      call.finish();
    }
    text = relay.result(text, obj);
    gen.commit();
    rec.status = 200;
    gen.reply.code(200).headers(gen.baseHeaders(target)).type('application/json').send(text);
    // `obj` is the answer as sent (relay.result rewrote its model in place when it had to).
    if (keepsAnswer(gen) && obj.status !== 'failed') keepAnswer(gen, target, driver, obj);
    return;
  }

  const body = response.body;
  const obs = gen.ctx.obs;
  const keepAlive = gen.codec.keepAliveFrame;

  return new Promise<void>((resolve, reject) => {
    let sse: SseReply | undefined;
    let settled = false;
    const settle = (err?: GatewayError) => {
      if (settled) return;
      settled = true;
      if (err) reject(err);
      else resolve();
    };
    const parser = new SseParser((frame) => {
      if (settled) return;
      if (!looksLikeJsonObject(frame.data)) {
        // After the terminal frame the answer is whole: a trailing marker (`[DONE]`) is dropped.
        if (relay.finished) return;
        // Not relayed as is: the caller's SDK would choke on it. Before the first byte it fails the
        // attempt (the router may fall back); after, the stream ends with the protocol's error frames,
        // as the translation lane does. Counted through the record's error kind.
        const err = new GatewayError('api_error', malformedFrameMessage(frame.data));
        call.abort.abort();
        call.finish();
        if (!sse) {
          settle(err);
          return;
        }
        rec.errorKind = err.kind;
        sse.write(relay.closingFrames(err));
        sse.end();
        settle();
        return;
      }
      if (!sse) {
        const early = relay.earlyError(frame);
        if (early) {
          call.abort.abort();
          settle(early);
          return;
        }
        gen.commit();
        // Committed: no retry re-sends the request; let the stream not hold the caller's conversation.
        if (!keepsAnswer(gen)) gen.releaseRequest();
        gen.reply.hijack();
        sse = new SseReply(gen.reply.raw, gen.ctx.config.server.heartbeatMs);
        rec.status = 200;
        obs.streamOpened(rec);
        sse.open(gen.baseHeaders(target), () => {
          if (!relay.finished) sse!.write(keepAlive);
        });
      }
      const t0 = performance.now();
      if (!sse.write(relay.frame(frame))) {
        body.pause();
        sse.onDrain(() => body.resume());
      }
      obs.eventWritten(rec, t0);
    });
    body.on('data', (chunk: Buffer) => {
      if (rec.tUpstreamFirstByte === 0) rec.tUpstreamFirstByte = performance.now();
      parser.push(chunk);
    });
    body.on('end', () => {
      call.finish();
      parser.end();
      if (settled) return;
      if (!sse) {
        settle(new GatewayError('api_error', `upstream ${provider.name} ended its stream before any event`));
        return;
      }
      if (!relay.finished) {
        rec.errorKind ??= 'api_error';
        sse.write(relay.closingFrames(new GatewayError('api_error', 'upstream stream ended before its terminal event')));
      }
      sse.end();
      if (relay.finalResponse && keepsAnswer(gen)) keepAnswer(gen, target, driver, relay.finalResponse);
      settle();
    });
    body.on('error', (err) => {
      call.finish();
      if (settled) return;
      const reason = call.abortReason();
      const gerr =
        reason === 'timeout' ? new GatewayError('timeout', `upstream ${provider.name} exceeded its total time limit`) : transportError(err, provider.name);
      if (!sse) {
        settle(gerr);
        return;
      }
      if (reason === 'client') rec.upstreamAborted = true;
      else if (!relay.finished) {
        rec.errorKind = gerr.kind;
        sse.write(relay.closingFrames(gerr));
      }
      sse.end();
      settle();
    });
  });
}

/** Saves a Responses answer after the caller's last byte; its IR turns come from the driver's decoder,
 * so a continuation on another protocol can carry this answer too. */
function keepAnswer(gen: Generation, target: RouteTarget, driver: Driver, response: Record<string, unknown>): void {
  const id = typeof response.id === 'string' ? response.id : gen.responseId;
  gen.ctx.saver.saveAfter(gen.reply.raw, id, gen.requestId, () => storedAnswer(gen, target, response, driver.decodeResult(response, gen.ir).content));
}

/** The caller's references as they were for the OpenAI deployment that produced every item they name. */
function forwardedBody(gen: Generation, target: RouteTarget): Record<string, unknown> {
  return gen.callerBody !== gen.body && gen.references?.allProducedBy(target) ? gen.callerBody : gen.body;
}
