// A second reader of the request lifecycle besides metrics and the log line (the status page's windows,
// status/status-collector.ts). Called from the observer's fixed points whether metrics are on or not;
// an implementation must be cheap: these run once per request (attemptEnded once per attempt).
import type { RequestRecord } from './request-record.js';

export interface RequestTap {
  requestStarted(rec: RequestRecord): void;
  /** SSE headers went to the caller (once per request; rec.tStreamOpened is set). */
  streamOpened(rec: RequestRecord): void;
  /** The request is over. `totalMs` from arrival to the end; `ttftMs` -1 when not a stream or no token came. */
  requestFinished(rec: RequestRecord, totalMs: number, ttftMs: number): void;
  /** One upstream attempt at `deployment` ("<provider>/<model>") ended: "success" or a GatewayErrorKind. */
  attemptEnded(deployment: string, outcome: string): void;
}
