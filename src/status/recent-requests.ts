// The last requests, metadata only: a fixed ring of reused entries, overwritten field by field, so
// remembering a request allocates nothing. Never prompt or answer text, never a key (only its name).
import type { Warning } from '../ir/types.js';
import type { RequestRecord } from '../observability/request-record.js';

export const RECENT_REQUESTS = 100;

class Entry {
  at = 0;
  requestId = '';
  door = '';
  model = '';
  alias = '';
  provider = '';
  upstreamModel = '';
  lane = '';
  stream = false;
  status = 0;
  errorKind: string | undefined = undefined;
  durationMs = 0;
  ttftMs = -1;
  inputTokens = -1;
  outputTokens = -1;
  costMicros = -1;
  keyName = '';
  attempts = 0;
  clientAborted = false;
  warnings: readonly Warning[] = [];
}

/** One row of status.json `recent` (the JSON shape, documented in docs/status.md). */
export interface RecentRequestJson {
  at: string;
  request_id: string;
  door: string;
  model: string;
  alias: string;
  deployment: string | null;
  lane: string;
  stream: boolean;
  status: number;
  error: string | null;
  duration_ms: number;
  ttft_ms: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cost_usd: number | null;
  key: string | null;
  attempts: number;
  client_aborted: boolean;
  warnings: string[];
  /** The process that served it (a worker under --workers). */
  pid: number;
}

/** Longest model name kept: the caller chooses it. */
const MAX_MODEL_CHARS = 120;

export class RecentRequests {
  private readonly entries: Entry[] = Array.from({ length: RECENT_REQUESTS }, () => new Entry());
  private next = 0;
  private count = 0;

  record(rec: RequestRecord, at: number, totalMs: number, ttftMs: number): void {
    const e = this.entries[this.next]!;
    this.next = (this.next + 1) % RECENT_REQUESTS;
    if (this.count < RECENT_REQUESTS) this.count++;
    e.at = at;
    e.requestId = rec.requestId;
    e.door = rec.frontDoor;
    e.model = rec.requestedModel;
    e.alias = rec.modelLabel;
    e.provider = rec.provider;
    e.upstreamModel = rec.upstreamModel;
    e.lane = rec.lane;
    e.stream = rec.stream;
    e.status = rec.status;
    e.errorKind = rec.errorKind;
    e.durationMs = totalMs;
    e.ttftMs = ttftMs;
    const u = rec.usage;
    e.inputTokens = u === undefined ? -1 : u.inputTokens;
    e.outputTokens = u === undefined ? -1 : u.outputTokens;
    e.costMicros = rec.costMicros;
    e.keyName = rec.keyName;
    e.attempts = rec.attempts;
    e.clientAborted = rec.clientAborted;
    e.warnings = rec.warnings;
  }

  /** Newest first, as JSON rows (built only when the page asks). */
  toJson(): RecentRequestJson[] {
    const out: RecentRequestJson[] = [];
    for (let k = 1; k <= this.count; k++) {
      const e = this.entries[(this.next - k + RECENT_REQUESTS) % RECENT_REQUESTS]!;
      out.push({
        at: new Date(e.at).toISOString(),
        request_id: e.requestId,
        door: e.door,
        model: e.model.length > MAX_MODEL_CHARS ? e.model.slice(0, MAX_MODEL_CHARS) + '…' : e.model,
        alias: e.alias,
        deployment: e.provider === 'none' || e.provider === '' ? null : e.provider + '/' + e.upstreamModel,
        lane: e.lane,
        stream: e.stream,
        status: e.status,
        error: e.errorKind ?? null,
        duration_ms: round1(e.durationMs),
        ttft_ms: e.ttftMs < 0 ? null : round1(e.ttftMs),
        input_tokens: e.inputTokens < 0 ? null : e.inputTokens,
        output_tokens: e.outputTokens < 0 ? null : e.outputTokens,
        cost_usd: e.costMicros < 0 ? null : e.costMicros / 1_000_000,
        key: e.keyName === '' ? null : e.keyName,
        attempts: e.attempts,
        client_aborted: e.clientAborted,
        warnings: e.warnings.map((w) => w.field),
        pid: process.pid,
      });
    }
    return out;
  }
}

export const round1 = (n: number): number => Math.round(n * 10) / 10;
