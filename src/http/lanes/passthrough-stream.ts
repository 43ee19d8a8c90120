// A pass-through stream, upstream to caller: frames in the usual form go out as the upstream's bytes
// (a run of them from one chunk in one write, never decoded unless the relay's tap reads them); the
// few the tap rewrites and the odd ones SseParser had to read go out re-serialised, in order. The
// first frame decides: an early failure gives the attempt a real status (the router may fall back),
// anything else commits the stream. Malformed frames, a stream cut short and transport failures end
// the caller's stream with the protocol's closing frames.
import { transportError } from '../../drivers/http-client.js';
import type { SseFrame } from '../../drivers/sse-parser.js';
import { SseSplitter, type FrameData } from '../../drivers/sse-splitter.js';
import { looksLikeJsonObject, malformedFrameMessage } from '../../drivers/stream-frame.js';
import { GatewayError } from '../../errors.js';
import type { RouteTarget } from '../../router/model-table.js';
import type { Generation } from '../generation.js';
import type { StreamSink } from '../stream-sink.js';
import type { Relay } from './relay.js';
import type { UpstreamCall } from './upstream-call.js';

/** Resolves when the caller's stream is over (or rejects before its first byte, for a fallback). */
export function relayStream(gen: Generation, target: RouteTarget, call: UpstreamCall, relay: Relay, onComplete: () => void): Promise<void> {
  const body = call.response.body;
  const rec = gen.rec;
  const obs = gen.ctx.obs;
  const keepAlive = gen.codec.keepAliveFrame;
  const providerName = target.provider.name;

  return new Promise<void>((resolve, reject) => {
    let sse: StreamSink | undefined;
    let settled = false;
    /** The run of untouched frames not yet written: bytes [runStart, runEnd) of runBuf. */
    let runBuf: Buffer | undefined;
    let runStart = 0;
    let runEnd = 0;
    /** Frames handed to the caller's socket since the last flush (for the inter-event metric). */
    let events = 0;
    let full = false;

    const settle = (err?: GatewayError) => {
      if (settled) return;
      settled = true;
      if (err) reject(err);
      else resolve();
    };
    const writeRun = () => {
      if (runBuf === undefined) return;
      if (!sse!.writeBytes(runBuf.subarray(runStart, runEnd))) full = true;
      runBuf = undefined;
    };
    /** Before any byte goes out: an early failure frame fails the attempt; else the stream opens. */
    const opens = (frame: SseFrame): boolean => {
      const early = relay.earlyError(frame);
      if (early) {
        call.abort.abort();
        settle(early);
        return false;
      }
      gen.commit();
      // Committed: no retry re-sends the request; let the stream not hold the caller's conversation
      // (a stored answer keeps the body's text: Generation.releaseCallerBody).
      gen.releaseRequest();
      sse = gen.transport.openStream(gen.ctx.config.server.heartbeatMs);
      rec.status = 200;
      obs.streamOpened(rec);
      sse.open(gen.baseHeaders(target), () => {
        if (!relay.finished) sse!.write(keepAlive);
      });
      return true;
    };

    const splitter = new SseSplitter({
      raw(event: string, data: FrameData, buf: Buffer, start: number, end: number) {
        if (settled) return;
        if (!sse && !opens({ event, data: data.text() })) return;
        const text = relay.tap(event, data);
        events++;
        if (text === undefined) {
          if (runBuf === buf && runEnd === start) {
            runEnd = end;
            return;
          }
          writeRun();
          runBuf = buf;
          runStart = start;
          runEnd = end;
          return;
        }
        writeRun();
        if (!sse!.write(text)) full = true;
      },
      parsed(frame: SseFrame) {
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
          writeRun();
          rec.errorKind = err.kind;
          sse.write(relay.closingFrames(err));
          sse.end();
          settle();
          return;
        }
        if (!sse && !opens(frame)) return;
        writeRun();
        events++;
        if (!sse!.write(relay.frame(frame))) full = true;
      },
      flush() {
        writeRun();
        if (events !== 0) {
          // One timestamp per upstream chunk: the frames of one chunk leave together.
          const now = performance.now();
          for (; events > 0; events--) obs.eventWritten(rec, now);
        }
        if (full && !settled) {
          full = false;
          body.pause();
          sse!.onDrain(() => body.resume());
        }
      },
      // A frame past the splitter's bound: the body's error handler ends the attempt or the stream.
      fail(err: GatewayError) {
        body.destroy(err);
      },
    }, relay.dataOnlyFrames === true);

    body.on('data', (chunk: Buffer) => {
      if (rec.tUpstreamFirstByte === 0) rec.tUpstreamFirstByte = performance.now();
      splitter.push(chunk);
    });
    body.on('end', () => {
      call.finish();
      splitter.end();
      if (settled) return;
      if (!sse) {
        settle(new GatewayError('api_error', `upstream ${providerName} ended its stream before any event`));
        return;
      }
      if (!relay.finished) {
        rec.errorKind ??= 'api_error';
        sse.write(relay.closingFrames(new GatewayError('api_error', 'upstream stream ended before its terminal event')));
      } else if (relay.endFrames && rec.errorKind === undefined) sse.write(relay.endFrames());
      sse.end();
      onComplete();
      settle();
    });
    body.on('error', (err) => {
      call.finish();
      if (settled) return;
      const reason = call.abortReason();
      const gerr = call.abortError() ?? transportError(err, providerName);
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
