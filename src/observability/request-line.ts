// The one "request finished" log line per request, built as a JSON string in a fixed field order and
// written straight to the logger's destination. pino would build an object, walk it (redaction,
// serializers, a generic stringifier for the nested parts) and only then write the same text: that
// was ~7 µs of every request. The line keeps pino's layout (level, time, the logger's bindings such as
// pid and hostname, the fields, msg) and honours the logger's level as it is at each call.
import { symbols, type Logger } from 'pino';
import { loggedReason } from './operator-reason.js';
import type { AttemptEntry, RequestRecord } from './request-record.js';

/** Warnings listed in one log line (the count is always logged). */
export const MAX_LOGGED_WARNINGS = 20;
export const MAX_LOGGED_MODEL_LENGTH = 256;
/** Attempt entries listed in one line (the first ones; `attempts` always counts them all). */
export const MAX_LOGGED_ATTEMPTS = 10;

const INFO = 30;
const MSG = 'request finished';

/** Durations the observer derived from the record (ms; negative = not reached, left out). */
export interface RequestDurations {
  totalMs: number;
  upstreamMs: number;
  overheadMs: number;
  ttftMs: number;
}

function boundedModel(name: string): string {
  return name.length > MAX_LOGGED_MODEL_LENGTH ? name.slice(0, MAX_LOGGED_MODEL_LENGTH) + '…' : name;
}

/**
 * The record's fields as JSON members, each preceded by a comma (`,"requestId":"…",…`), in the order
 * the line has always had. Free text goes through JSON.stringify (escapes, unicode); warning messages
 * through `mask` (they may quote an upstream error holding a key). Undefined fields are left out.
 */
export function requestLineFields(rec: RequestRecord, d: RequestDurations, mask: (text: string) => string): string {
  const model = boundedModel(rec.requestedModel);
  let s =
    ',"requestId":' + JSON.stringify(rec.requestId) +
    ',"frontDoor":' + JSON.stringify(rec.frontDoor) +
    ',"model":' + JSON.stringify(model) +
    ',"modelLabel":' + JSON.stringify(rec.modelLabel) +
    ',"provider":' + JSON.stringify(rec.provider) +
    ',"upstreamProtocol":' + JSON.stringify(rec.upstreamProtocol) +
    // A wildcard route passes the caller's name on: bounded like `model`.
    ',"upstreamModel":' + JSON.stringify(boundedModel(rec.upstreamModel)) +
    ',"lane":' + JSON.stringify(rec.lane) +
    ',"stream":' + (rec.stream ? 'true' : 'false') +
    ',"status":' + num(rec.status);
  // Only a socket's responses say so: HTTP lines stay as they were.
  if (rec.transport !== 'http') s += ',"transport":"' + rec.transport + '"';
  if (rec.errorKind !== undefined) s += ',"errorKind":' + JSON.stringify(rec.errorKind);
  if (rec.errorReason !== undefined) s += ',"error":' + JSON.stringify(loggedReason(rec.errorReason, mask));
  s += ',"attempts":' + num(rec.attempts) + ',"retries":' + num(rec.retries) + ',"fallbacks":' + num(rec.fallbacks);
  if (rec.attemptLog !== undefined) s += ',"attemptLog":' + attemptLogJson(rec.attemptLog, mask);
  s += ',"durationMs":' + millis(d.totalMs);
  if (d.upstreamMs >= 0) s += ',"upstreamMs":' + millis(d.upstreamMs);
  if (d.overheadMs >= 0) s += ',"overheadMs":' + millis(d.overheadMs);
  if (d.ttftMs >= 0) s += ',"ttftMs":' + millis(d.ttftMs);
  const u = rec.usage;
  if (u) {
    s +=
      ',"tokens":{"input":' + num(u.inputTokens) +
      ',"output":' + num(u.outputTokens) +
      ',"cacheRead":' + num(u.cacheReadTokens) +
      ',"cacheWrite":' + num(u.cacheWriteTokens) +
      ',"reasoning":' + num(u.reasoningTokens) + '}';
  }
  if (rec.finishReason !== undefined) s += ',"finishReason":' + JSON.stringify(rec.finishReason);
  if (rec.keyName !== '') s += ',"key":' + JSON.stringify(rec.keyName);
  if (rec.teamName !== '') s += ',"team":' + JSON.stringify(rec.teamName);
  if (rec.costMicros >= 0) s += ',"cost_usd":' + num(rec.costMicros / 1_000_000);
  const warnings = rec.warnings;
  s += ',"warningCount":' + warnings.length;
  if (warnings.length > 0) {
    s += ',"warnings":[';
    const n = Math.min(warnings.length, MAX_LOGGED_WARNINGS);
    for (let i = 0; i < n; i++) {
      const w = warnings[i]!;
      s += (i === 0 ? '{"field":' : ',{"field":') + JSON.stringify(w.field) + ',"message":' + JSON.stringify(mask(w.message)) + '}';
    }
    s += ']';
  }
  if (rec.clientAborted) s += ',"clientAborted":true';
  if (rec.upstreamAborted) s += ',"upstreamAborted":true';
  return s;
}

/** The router's story as a JSON array: one object per attempt or skipped deployment. */
export function attemptLogJson(entries: readonly AttemptEntry[], mask: (text: string) => string): string {
  let s = '[';
  const n = Math.min(entries.length, MAX_LOGGED_ATTEMPTS);
  for (let i = 0; i < n; i++) s += (i === 0 ? '' : ',') + attemptEntryJson(entries[i]!, mask);
  return s + ']';
}

/** One entry as JSON members in a fixed order (the per-attempt log line uses the same fields). */
export function attemptEntryJson(e: AttemptEntry, mask: (text: string) => string): string {
  let s = '{"deployment":' + JSON.stringify(boundedModel(e.deployment)) + ',"attempt":' + num(e.attempt) + ',"outcome":' + JSON.stringify(e.outcome);
  if (e.upstreamStatus !== undefined) s += ',"upstreamStatus":' + num(e.upstreamStatus);
  if (e.reason !== undefined) s += ',"reason":' + JSON.stringify(loggedReason(e.reason, mask));
  if (e.next !== undefined) s += ',"next":' + JSON.stringify(e.next);
  if (e.why !== undefined) s += ',"why":' + JSON.stringify(e.why);
  if (e.waitMs !== undefined) s += ',"waitMs":' + num(e.waitMs);
  return s + '}';
}

/** Writes request lines through a pino logger's own destination, or through pino when it must. */
export class RequestLineWriter {
  /** Whether the line can bypass pino: anything that changes what pino writes (a mixin, a log
   * formatter, a write hook, a nested key, a message prefix, a destination that reads pino's
   * per-line metadata such as multistream) sends the line through pino instead. */
  private readonly direct: boolean;
  // What pino fixes when a logger is made, read once: `{"level":30`, the time function, the
  // message and line end, the destination. The bindings are read per line (setBindings changes them).
  private readonly level: string;
  private readonly time: () => string;
  private readonly tail: string;
  private readonly stream: { write(line: string): unknown };

  constructor(private readonly logger: Logger) {
    const l = logger as unknown as Record<symbol, unknown>;
    const formatters = l[symbols.formattersSym] as { log?: unknown } | undefined;
    const hooks = l[symbols.hooksSym] as { streamWrite?: unknown } | undefined;
    const stream = l[symbols.streamSym] as ({ write?: unknown } & Record<symbol, unknown>) | undefined;
    const level = (l[symbols.lsCacheSym] as Record<number, string> | undefined)?.[INFO];
    const time = l[symbols.timeSym];
    // In pino's symbols, not in its type definitions.
    const msgPrefixSym = (symbols as unknown as Record<string, symbol | undefined>).msgPrefixSym;
    this.direct =
      !l[symbols.mixinSym] &&
      !formatters?.log &&
      !hooks?.streamWrite &&
      !l[symbols.nestedKeySym] &&
      (msgPrefixSym === undefined || !l[msgPrefixSym]) &&
      typeof level === 'string' &&
      typeof time === 'function' &&
      typeof l[symbols.chindingsSym] === 'string' &&
      typeof stream?.write === 'function' &&
      stream[symbols.needsMetadataGsym] !== true;
    this.level = typeof level === 'string' ? level : '';
    this.time = typeof time === 'function' ? (time as () => string).bind(logger) : () => '';
    this.tail = ',"' + String(l[symbols.messageKeySym]) + '":"' + MSG + '"' + String(l[symbols.endSym]);
    this.stream = stream as { write(line: string): unknown };
  }

  /** The logger's level as it is now (it may change at run time): no line when info is off. */
  get enabled(): boolean {
    return this.logger.isLevelEnabled('info');
  }

  /** Write one line whose members are `fields` (requestLineFields' output). */
  write(fields: string): void {
    if (!this.direct) {
      // Only loggers built with hooks or mixins get here (never the gateway's own): let pino apply them.
      this.logger.info(JSON.parse('{' + fields.slice(1) + '}') as object, MSG);
      return;
    }
    const bindings = (this.logger as unknown as Record<symbol, string>)[symbols.chindingsSym]!;
    this.stream.write(this.level + this.time() + bindings + fields + this.tail);
  }
}

/**
 * A duration rounded to the microsecond, written as `String(Math.round(ms * 1000) / 1000)` would write
 * it, from integer arithmetic: turning a fractional double into its shortest decimal is the costly part
 * of number formatting, and every line has up to four durations.
 */
export function millis(ms: number): string {
  const us = Math.round(ms * 1000);
  // Negative, huge or not finite: the general conversion (the same text, just slower).
  if (!(us >= 0 && us <= Number.MAX_SAFE_INTEGER)) return num(us / 1000);
  const whole = Math.floor(us / 1000);
  let frac = us - whole * 1000;
  if (frac === 0) return String(whole);
  let digits = 3;
  while (frac % 10 === 0) {
    frac /= 10;
    digits--;
  }
  const f = String(frac);
  return String(whole) + (f.length < digits ? '.' + '00'.slice(0, digits - f.length) + f : '.' + f);
}

/** A number as pino writes it: non-finite values become null. */
function num(n: number): string {
  return Number.isFinite(n) ? String(n) : 'null';
}
