// Pass-through lane: the caller's protocol is the upstream's. The body is forwarded with only the
// model replaced; the answer is relayed as it arrives (unknown fields and event types survive), with
// a tap for usage, finish and errors. The fast path and the lossless one.
import { readText, transportError } from '../../drivers/http-client.js';
import { driverFor } from '../../drivers/registry.js';
import { SseParser } from '../../drivers/sse-parser.js';
import { GatewayError } from '../../errors.js';
import type { RouteTarget } from '../../router/model-table.js';
import type { Generation } from '../generation.js';
import { SseReply } from '../sse-reply.js';
import { MessagesRelay, type Relay } from './messages-relay.js';
import { passthroughRequest } from './passthrough-body.js';
import { ResponsesRelay } from './responses-relay.js';
import { callUpstream } from './upstream-call.js';
import { mergeAnthropicUsage, responsesUsage } from './usage-taps.js';

const PING_FRAME = 'event: ping\ndata: {"type":"ping"}\n\n';
const KEEPALIVE_COMMENT = ': keep-alive\n\n';

export async function runPassthroughLane(gen: Generation, target: RouteTarget): Promise<void> {
  const provider = target.provider;
  const protocol = gen.codec.protocol;
  const driver = driverFor(protocol);
  // Nothing is translated here, so nothing is lost: decode-time warnings do not apply.
  gen.warnings = [];
  gen.rec.warnings = gen.warnings;
  const encoded = passthroughRequest(gen, provider, target.model, target.target, protocol === 'messages' ? '/v1/messages' : '/responses');
  const call = await callUpstream(gen, target, driver, encoded);
  const { response } = call;
  const rec = gen.rec;
  const rewrite = target.model !== gen.ir.model;

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
    if (protocol === 'messages') {
      rec.usage = mergeAnthropicUsage(undefined, obj.usage as never);
      rec.finishReason = typeof obj.stop_reason === 'string' ? obj.stop_reason : undefined;
    } else {
      rec.usage = responsesUsage(obj.usage as never);
      rec.finishReason = typeof obj.status === 'string' ? obj.status : undefined;
    }
    if (rewrite) {
      obj.model = gen.ir.model;
      text = JSON.stringify(obj);
    }
    gen.committed = true;
    rec.status = 200;
    gen.reply.code(200).headers(gen.baseHeaders(target)).type('application/json').send(text);
    return;
  }

  const relay: Relay =
    protocol === 'messages'
      ? new MessagesRelay(rec, gen.ir.model, rewrite, (err) => gen.codec.encodeError(err, gen.requestId).body)
      : new ResponsesRelay(rec, gen.ir.model, rewrite);
  const body = response.body;
  const obs = gen.ctx.obs;

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
      if (!sse) {
        const early = relay.earlyError(frame);
        if (early) {
          call.abort.abort();
          settle(early);
          return;
        }
        gen.committed = true;
        gen.reply.hijack();
        sse = new SseReply(gen.reply.raw, gen.ctx.config.server.heartbeatMs);
        rec.status = 200;
        obs.streamOpened(rec);
        sse.open(gen.baseHeaders(target), () => {
          if (!relay.finished) sse!.write(protocol === 'messages' ? PING_FRAME : KEEPALIVE_COMMENT);
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
