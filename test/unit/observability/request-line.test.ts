// The hand-built request log line against what pino wrote for the same record before: the same
// members in the same order with the same values, for records that exercise every optional field,
// escapes, unicode and truncation; the logger's level honoured at each call; secrets masked.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { destination, pino, type Logger } from 'pino';
import { describe, expect, it } from 'vitest';
import { loggerOptions, REDACTED, secretMasker } from '../../../src/observability/logger.js';
import { Observability } from '../../../src/observability/observer.js';
import { MAX_LOGGED_MODEL_LENGTH, MAX_LOGGED_WARNINGS, millis, RequestLineWriter, requestLineFields, type RequestDurations } from '../../../src/observability/request-line.js';
import { RequestRecord } from '../../../src/observability/request-record.js';

const SECRET = 'prov-key-0123456789abcdef';
const mask = secretMasker([SECRET]);

function memoryLogger(level = 'info', extra: Parameters<typeof loggerOptions>[1] = {}): { logger: Logger; text: () => string } {
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      text += chunk.toString('utf8');
      cb();
    },
  });
  return { logger: pino(loggerOptions(level, extra), sink), text: () => text };
}

/** The line as the observer wrote it through pino before this file existed (the reference). */
function pinoReference(logger: Logger, rec: RequestRecord, d: RequestDurations): void {
  const u = rec.usage;
  const w = rec.warnings;
  const r = (ms: number) => Math.round(ms * 1000) / 1000;
  logger.child({}, { redact: { paths: ['authorization'], censor: REDACTED } }).info(
    {
      requestId: rec.requestId,
      frontDoor: rec.frontDoor,
      model: rec.requestedModel.length > MAX_LOGGED_MODEL_LENGTH ? rec.requestedModel.slice(0, MAX_LOGGED_MODEL_LENGTH) + '…' : rec.requestedModel,
      modelLabel: rec.modelLabel,
      provider: rec.provider,
      upstreamProtocol: rec.upstreamProtocol,
      upstreamModel: rec.upstreamModel,
      lane: rec.lane,
      stream: rec.stream,
      status: rec.status,
      errorKind: rec.errorKind,
      attempts: rec.attempts,
      retries: rec.retries,
      fallbacks: rec.fallbacks,
      durationMs: r(d.totalMs),
      upstreamMs: d.upstreamMs >= 0 ? r(d.upstreamMs) : undefined,
      overheadMs: d.overheadMs >= 0 ? r(d.overheadMs) : undefined,
      ttftMs: d.ttftMs >= 0 ? r(d.ttftMs) : undefined,
      tokens: u ? { input: u.inputTokens, output: u.outputTokens, cacheRead: u.cacheReadTokens, cacheWrite: u.cacheWriteTokens, reasoning: u.reasoningTokens } : undefined,
      finishReason: rec.finishReason,
      key: rec.keyName === '' ? undefined : rec.keyName,
      team: rec.teamName === '' ? undefined : rec.teamName,
      cost_usd: rec.costMicros >= 0 ? rec.costMicros / 1_000_000 : undefined,
      warningCount: w.length,
      warnings: w.length ? w.slice(0, MAX_LOGGED_WARNINGS).map((x) => ({ field: x.field, message: mask(x.message) })) : undefined,
      clientAborted: rec.clientAborted || undefined,
      upstreamAborted: rec.upstreamAborted || undefined,
    },
    'request finished',
  );
}

interface Case {
  name: string;
  rec: RequestRecord;
  d: RequestDurations;
}

function cases(): Case[] {
  const bare = new RequestRecord('req_bare', 'messages', 0);
  bare.status = 400;
  bare.errorKind = 'invalid_request_error';

  const full = new RequestRecord('req_full', 'responses', 0);
  Object.assign(full, {
    stream: true,
    requestedModel: 'fast',
    modelLabel: 'fast',
    provider: 'up-chat',
    upstreamProtocol: 'chat',
    upstreamModel: 'gpt-4.1-mini',
    lane: 'translation',
    status: 200,
    attempts: 3,
    retries: 1,
    fallbacks: 1,
    usage: { inputTokens: 1200, outputTokens: 345, cacheReadTokens: 1000, cacheWriteTokens: 7, reasoningTokens: 120 },
    finishReason: 'tool_use',
    keyName: 'ci-bot',
    teamName: 'platform',
    costMicros: 12_345,
    clientAborted: true,
    upstreamAborted: true,
  });
  full.warnings = [
    { field: 'tools.2.cache_control', message: 'not supported by chat' },
    { field: 'reasoning', message: `upstream said: invalid key ${SECRET}, Bearer abcdefgh12345` },
  ];

  const escapes = new RequestRecord('req_esc', 'messages', 0);
  Object.assign(escapes, {
    requestedModel: 'model "quoted" \\ back\nslash\ttab\u0001 ctl',
    modelLabel: 'other',
    provider: 'p\u2028line',
    upstreamModel: 'Ünïcödé-模型-🚀',
    lane: 'passthrough',
    upstreamProtocol: 'messages',
    status: 200,
    finishReason: 'end_turn',
    keyName: 'clé "1"',
    costMicros: 0,
  });
  escapes.warnings = Array.from({ length: MAX_LOGGED_WARNINGS + 5 }, (_, i) => ({ field: `messages.${i}.content`, message: `dropped "${i}" — ✓` }));

  const long = new RequestRecord('req_long', 'messages', 0);
  long.requestedModel = 'm'.repeat(MAX_LOGGED_MODEL_LENGTH + 40);
  long.status = 200;
  long.usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };

  return [
    { name: 'bare error, no upstream', rec: bare, d: { totalMs: 0.0421, upstreamMs: -1, overheadMs: -1, ttftMs: -1 } },
    { name: 'every optional field', rec: full, d: { totalMs: 1234.56789, upstreamMs: 1200.1, overheadMs: 34.46789, ttftMs: 150.0004 } },
    { name: 'strings needing escapes, unicode, many warnings', rec: escapes, d: { totalMs: 3, upstreamMs: 2.5, overheadMs: 0.5, ttftMs: -1 } },
    { name: 'a long model name', rec: long, d: { totalMs: 1e-7, upstreamMs: 0, overheadMs: 0, ttftMs: 0 } },
  ];
}

describe('the hand-built request line', () => {
  for (const c of cases()) {
    it(`matches pino's line member by member: ${c.name}`, () => {
      const ours = memoryLogger();
      new RequestLineWriter(ours.logger).write(requestLineFields(c.rec, c.d, mask));
      const ref = memoryLogger();
      pinoReference(ref.logger, c.rec, c.d);

      expect(ours.text().endsWith('\n')).toBe(true);
      expect(ours.text().split('\n')).toHaveLength(2);
      const a = JSON.parse(ours.text()) as Record<string, unknown>;
      const b = JSON.parse(ref.text()) as Record<string, unknown>;
      expect(Object.keys(a)).toEqual(Object.keys(b));
      expect(typeof a.time).toBe('number');
      expect(Math.abs((a.time as number) - (b.time as number))).toBeLessThan(5_000);
      expect({ ...a, time: 0 }).toEqual({ ...b, time: 0 });
      // Same text too, once the timestamps are aligned.
      expect(ours.text().replace(/"time":\d+/, '"time":0')).toBe(ref.text().replace(/"time":\d+/, '"time":0'));
      expect(a).toMatchObject({ level: 30, pid: process.pid, msg: 'request finished', requestId: c.rec.requestId });
      expect(ours.text()).not.toContain(SECRET);
    });
  }

  it('escapes lone surrogates (a model name cut inside an emoji) so the line stays valid UTF-8 JSON', () => {
    const rec = new RequestRecord('req_s', 'messages', 0);
    rec.requestedModel = 'x'.repeat(MAX_LOGGED_MODEL_LENGTH - 1) + '🚀🚀';
    const out = memoryLogger();
    new RequestLineWriter(out.logger).write(requestLineFields(rec, { totalMs: 1, upstreamMs: -1, overheadMs: -1, ttftMs: -1 }, mask));
    expect(out.text()).toContain('\\ud83d…"');
    expect((JSON.parse(out.text()) as { model: string }).model).toBe('x'.repeat(MAX_LOGGED_MODEL_LENGTH - 1) + '\ud83d…');
  });

  it("keeps a custom base, child bindings, level formatter and time format, and goes through pino when the logger has a mixin", () => {
    const rec = cases()[1]!.rec;
    const d = cases()[1]!.d;
    const based = memoryLogger('info', { base: { service: 'gw' } });
    new RequestLineWriter(based.logger.child({ worker: 2 })).write(requestLineFields(rec, d, mask));
    const line = JSON.parse(based.text()) as Record<string, unknown>;
    expect(Object.keys(line).slice(0, 4)).toEqual(['level', 'time', 'service', 'worker']);
    expect(line.pid).toBeUndefined();

    // A level formatter and ISO time: pino's cached level string and time function are reused.
    const labelled = memoryLogger('info', { formatters: { level: (label) => ({ severity: label.toUpperCase() }) }, timestamp: pino.stdTimeFunctions.isoTime });
    new RequestLineWriter(labelled.logger).write(requestLineFields(rec, d, mask));
    const lref = memoryLogger('info', { formatters: { level: (label) => ({ severity: label.toUpperCase() }) }, timestamp: pino.stdTimeFunctions.isoTime });
    pinoReference(lref.logger, rec, d);
    const iso = /"time":"[^"]+"/;
    expect(labelled.text()).toMatch(/^\{"severity":"INFO","time":"\d{4}-/);
    expect(labelled.text().replace(iso, '')).toBe(lref.text().replace(iso, ''));

    const mixed = memoryLogger('info', { mixin: () => ({ mixed: true }) });
    new RequestLineWriter(mixed.logger).write(requestLineFields(rec, d, mask));
    const ref = memoryLogger('info', { mixin: () => ({ mixed: true }) });
    pinoReference(ref.logger, rec, d);
    expect({ ...JSON.parse(mixed.text()), time: 0 }).toEqual({ ...JSON.parse(ref.text()), time: 0 });
    expect(JSON.parse(mixed.text())).toMatchObject({ mixed: true, requestId: 'req_full' });
  });
});

describe('through a sonic-boom destination (what createLogger uses)', () => {
  it('writes whole lines to the file, interleaved in order with pino\'s own lines', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'request-line-'));
    try {
      const file = path.join(dir, 'log.ndjson');
      const dest = destination({ dest: file, sync: true });
      const logger = pino(loggerOptions('info'), dest);
      const writer = new RequestLineWriter(logger);
      const c = cases()[1]!;
      logger.info('before');
      writer.write(requestLineFields(c.rec, c.d, mask));
      logger.info('after');
      dest.flushSync();
      const lines = readFileSync(file, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as { msg: string; requestId?: string });
      expect(lines.map((l) => l.msg)).toEqual(['before', 'request finished', 'after']);
      expect(lines[1]!.requestId).toBe('req_full');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the level switch', () => {
  it('writes no line above info, and follows level changes made at run time', () => {
    const out = memoryLogger('warn');
    const obs = new Observability({ metricsEnabled: false, logger: out.logger });
    const finish = (id: string) => {
      const rec = new RequestRecord(id, 'messages', 0);
      rec.tEnd = 1;
      obs.requestFinished(rec);
    };
    finish('req_1');
    expect(out.text()).toBe('');
    out.logger.level = 'info';
    finish('req_2');
    out.logger.level = 'error';
    finish('req_3');
    out.logger.level = 'debug';
    finish('req_4');
    const ids = out
      .text()
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { requestId: string }).requestId);
    expect(ids).toEqual(['req_2', 'req_4']);
  });
});

describe('millis: durations written as String(Math.round(ms * 1000) / 1000) writes them', () => {
  it('gives the same text for edge values and a spread of random durations', () => {
    const values = [0, -0, 0.0004, 0.0005, 0.001, 0.01, 0.1, 1, 1.5, 12.345, 12.3, 12.03, 12.003, 999.9995, 1e6 + 0.123, 123456789.001, -1, -2.5, 1e20, NaN, Infinity];
    // A fixed linear congruential sequence: the same values on every run.
    let seed = 12345;
    for (let i = 0; i < 20_000; i++) {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      values.push((seed / 2 ** 31) * [10, 10_000, 1e7][i % 3]!);
    }
    for (const v of values) {
      const r = Math.round(v * 1000) / 1000;
      expect(millis(v), String(v)).toBe(Number.isFinite(r) ? String(r) : 'null');
    }
  });
});
