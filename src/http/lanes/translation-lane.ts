// Translation lane: caller protocol ≠ upstream protocol. IR → driver request → upstream stream →
// driver decoder → IR events → the caller's encoder (event-delivery).
import { GatewayError } from '../../errors.js';
import { driverFor } from '../../drivers/registry.js';
import { transportError } from '../../drivers/http-client.js';
import { SseParser } from '../../drivers/sse-parser.js';
import { capOutput } from '../../ir/output-cap.js';
import { resultToEvents } from '../../ir/result-to-events.js';
import type { IrRequest, Protocol, Warning } from '../../ir/types.js';
import { driverTarget } from '../../router/driver-target.js';
import type { RouteTarget } from '../../router/model-table.js';
import { applyTargetSettings } from '../../router/target-settings.js';
import { upstreamStreams } from '../../router/upstream-streaming.js';
import { EventDelivery } from '../event-delivery.js';
import type { Generation } from '../generation.js';
import { assertTargetTakesMediaUrls } from './media-url-check.js';
import { callUpstream, callUpstreamWhole } from './upstream-call.js';

export async function runTranslationLane(gen: Generation, target: RouteTarget): Promise<void> {
  const provider = target.provider;
  const driver = driverFor(provider.protocol as Protocol);
  assertTargetTakesMediaUrls(gen.ir, provider);
  // A field only the caller's own protocol can honour (Chat `n`, `logprobs`, audio): refused, not dropped.
  const only = gen.ir.passthroughOnly;
  if (only !== undefined) throw new GatewayError('invalid_request', only.message, { param: only.param });
  const ir = applyTargetSettings(gen.ir, target.target);
  const streamUpstream = upstreamStreams(provider, ir);
  // Warnings are per attempt: a fallback target may drop different things.
  const warnings: Warning[] = gen.warnings.slice(0, gen.baseWarningCount);
  const encoded = driver.encodeRequest(ir, driverTarget(provider, target.model, driver.forwardedHeaders(gen.headers, gen.codec.protocol)), streamUpstream, warnings);
  const cap = outputCap(ir, driver.minOutputTokens, gen.codec.outputLimitField, warnings);
  gen.warnings = warnings;
  gen.rec.warnings = warnings;

  if (!streamUpstream) {
    const text = await callUpstreamWhole(gen, target, driver, encoded);
    const delivery = new EventDelivery(gen, target);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new GatewayError('api_error', `upstream ${provider.name} sent a malformed body`);
    }
    const result = driver.decodeResult(json, ir);
    if (cap === undefined) delivery.deliverResult(result);
    else {
      resultToEvents(result, capOutput(cap, delivery.emit));
      delivery.end();
    }
    return delivery.done;
  }

  const call = await callUpstream(gen, target, driver, encoded, true);
  const { response } = call;
  const delivery = new EventDelivery(gen, target);
  const emit = cap === undefined ? delivery.emit : capOutput(cap, delivery.emit);

  const body = response.body;
  const decoder = driver.createEventDecoder(ir, emit);
  // A frame past the parser's bound fails the body: its error handler ends the stream with the error.
  const parser = new SseParser(
    (frame) => decoder.frame(frame),
    (err) => body.destroy(err),
  );
  delivery.source = {
    pause: () => body.pause(),
    resume: () => body.resume(),
    cancel: () => call.abort.abort(),
  };
  const rec = gen.rec;
  // Bytes: the parser decodes them (undici's body ignores setEncoding: its chunks stay Buffers).
  body.on('data', (chunk: Buffer) => {
    delivery.beginChunk();
    if (rec.tUpstreamFirstByte === 0) rec.tUpstreamFirstByte = performance.now();
    parser.push(chunk);
    delivery.endChunk();
  });
  body.on('end', () => {
    call.finish();
    parser.end();
    decoder.end();
    delivery.end();
  });
  body.on('error', (err) => {
    call.finish();
    const reason = call.abortReason();
    if (reason === 'client') {
      rec.upstreamAborted = true;
      delivery.sourceFailed(new GatewayError('api_error', 'caller disconnected'));
      return;
    }
    delivery.sourceFailed(call.abortError() ?? transportError(err, provider.name));
  });
  return delivery.done;
}

/**
 * The caller's output limit when the upstream's minimum is above it (a Messages `max_tokens: 5` toward
 * Responses, which takes 16): the upstream is asked for its minimum and the answer cut to the caller's
 * limit (mapping.md §15.54), with a warning.
 */
function outputCap(ir: IrRequest, minimum: number | undefined, field: string, warnings: Warning[]): number | undefined {
  const limit = ir.maxOutputTokens;
  if (minimum === undefined || limit === undefined || limit >= minimum) return undefined;
  warnings.push({
    field,
    message: `${field} ${limit} is below the upstream's minimum of ${minimum}: ${minimum} requested, the answer cut to about ${limit} tokens; usage reports the tokens the upstream generated`,
  });
  return limit;
}
