// One record per gateway request, filled in by the routes and lanes as the request flows, read by
// the observability tap at the end (metrics + one log line). Plain fields, stable shape.
import type { GenerationDoor } from '../codecs/doors.js';
import type { Protocol, Usage, Warning } from '../ir/types.js';
import type { HistogramSink } from './metrics.js';

export type FrontDoor = GenerationDoor | 'count_tokens' | 'input_tokens' | 'countTokens' | 'models';
export type Lane = 'passthrough' | 'translation' | 'local' | 'none';

/** One step of the router's story for a request that needed more than one clean attempt. */
export interface AttemptEntry {
  /** "<provider>/<upstream model>". */
  deployment: string;
  attempt: number;
  /** "success", a GatewayErrorKind, or "skipped" (circuit open, a later deployment available). */
  outcome: string;
  /** The upstream's HTTP status, when it answered one. */
  upstreamStatus?: number;
  /** The failure in the operator's words (raw: masked and bounded when written). */
  reason?: string;
  /** What the router did next, and why (router/attempts.ts NextStep, MoveReason). */
  next?: string;
  why?: string;
  waitMs?: number;
}

export class RequestRecord {
  requestId: string;
  frontDoor: FrontDoor;
  stream = false;
  /** The model the caller named (logs only: unbounded). */
  requestedModel = '';
  /** Bounded metric label: a configured alias/route name, else "other". */
  modelLabel = 'other';
  provider = 'none';
  upstreamProtocol: Protocol | 'demo' | 'none' = 'none';
  upstreamModel = '';
  lane: Lane = 'none';
  /** How the caller reached the gateway: an HTTP request, or a response.create on a WebSocket. */
  transport: 'http' | 'websocket' = 'http';
  /** HTTP status sent to the caller (200 for streams, even if an error event followed). */
  status = 0;
  /** GatewayErrorKind of the failure, if any (also set for in-stream errors). */
  errorKind: string | undefined = undefined;
  /** The failure in the operator's words (raw: masked and bounded when logged). */
  errorReason: string | undefined = undefined;
  attempts = 0;
  /** Every attempt once one failed or a deployment was skipped; undefined on the clean path (no allocation). */
  attemptLog: AttemptEntry[] | undefined = undefined;
  fallbacks = 0;
  retries = 0;
  // Monotonic timestamps in ms (performance.now()); 0 = not reached.
  tStart: number;
  tDecoded = 0;
  tRouted = 0;
  /** Last upstream request sent. */
  tUpstreamSent = 0;
  /** Upstream response headers received. */
  tUpstreamHeaders = 0;
  /** First upstream body byte. */
  tUpstreamFirstByte = 0;
  /** Upstream body fully received (or aborted). */
  tUpstreamEnd = 0;
  /** First content token (text/reasoning/tool delta) written to the caller. */
  tFirstToken = 0;
  tEnd = 0;
  /** Time spent in codec encode/decode of IR events (ms, summed). */
  encodeMs = 0;
  usage: Usage | undefined = undefined;
  finishReason: string | undefined = undefined;
  warnings: Warning[] = [];
  /** The calling key's and team's configured names ('' before authentication / without a team). */
  keyName = '';
  teamName = '';
  /** The answer's cost in micro-USD; -1 when unknown (no usage, or no price for the upstream model). */
  costMicros = -1;
  clientAborted = false;
  upstreamAborted = false;
  /** Last time an event was written to the caller, for the inter-event gap histogram. */
  lastEventAt = 0;
  /** SSE headers sent to the caller (set by Observability.streamOpened; 0 = not a stream / not reached). */
  tStreamOpened = 0;
  /** The inter-event gap series, bound once at stream open so the per-event call does no label work. */
  eventGapSink: HistogramSink | undefined = undefined;

  constructor(requestId: string, frontDoor: FrontDoor, now: number) {
    this.requestId = requestId;
    this.frontDoor = frontDoor;
    this.tStart = now;
  }
}
