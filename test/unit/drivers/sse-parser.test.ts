import { describe, expect, it } from 'vitest';
import { MAX_FRAME, SseParser, type SseFrame } from '../../../src/drivers/sse-parser.js';
import { GatewayError } from '../../../src/errors.js';

function parseAll(chunks: (string | Uint8Array)[]): SseFrame[] {
  const frames: SseFrame[] = [];
  const p = new SseParser((f) => frames.push(f));
  for (const c of chunks) p.push(c);
  p.end();
  return frames;
}

const SAMPLE =
  'event: message_start\ndata: {"type":"message_start","message":{"id":"m","text":"h\\u00e9llo ✓ 日本"}}\n\n' +
  ': keep-alive comment\n\n' +
  'event: content_block_delta\r\ndata: {"a":1}\r\n\r\n' +
  'data:{"no":"space"}\r\r' +
  'data: line1\ndata: line2\n\n' +
  'event: empty-data-ignored\n\n' +
  'data: [DONE]\n\n';

const EXPECTED: SseFrame[] = [
  { event: 'message_start', data: '{"type":"message_start","message":{"id":"m","text":"h\\u00e9llo ✓ 日本"}}' },
  { event: 'content_block_delta', data: '{"a":1}' },
  { event: undefined, data: '{"no":"space"}' },
  { event: undefined, data: 'line1\nline2' },
  { event: undefined, data: '[DONE]' },
];

describe('SseParser', () => {
  it('parses LF, CRLF and CR framing, comments, data without a space, multi-line data', () => {
    expect(parseAll([SAMPLE])).toEqual(EXPECTED);
  });

  it('gives the same frames for the bytes split at every offset (including inside UTF-8 sequences)', () => {
    const bytes = Buffer.from(SAMPLE, 'utf8');
    for (let i = 1; i < bytes.length; i++) {
      expect(parseAll([bytes.subarray(0, i), bytes.subarray(i)]), `split at ${i}`).toEqual(EXPECTED);
    }
  });

  it('ignores one byte-order mark at the start of the stream, split or whole, and keeps a later one', () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('data: a\n\ndata: \ufeffb\n\n', 'utf8')]);
    const want: SseFrame[] = [
      { event: undefined, data: 'a' },
      { event: undefined, data: '\ufeffb' },
    ];
    for (let i = 1; i < 5; i++) expect(parseAll([bytes.subarray(0, i), bytes.subarray(i)]), `split at ${i}`).toEqual(want);
    expect(parseAll([bytes])).toEqual(want);
  });

  it('turns invalid UTF-8 into U+FFFD, a cut sequence at the end included', () => {
    expect(parseAll([Buffer.from([0x64, 0x61, 0x74, 0x61, 0x3a, 0x20, 0xff, 0x41, 0x0a, 0x0a])])).toEqual([{ event: undefined, data: '\ufffdA' }]);
    expect(parseAll([Buffer.from('data: x', 'utf8'), Buffer.from([0xe2, 0x9c])])).toEqual([{ event: undefined, data: 'x\ufffd' }]);
  });

  it('survives one byte at a time', () => {
    const bytes = Buffer.from(SAMPLE, 'utf8');
    const chunks: Uint8Array[] = [];
    for (let i = 0; i < bytes.length; i++) chunks.push(bytes.subarray(i, i + 1));
    expect(parseAll(chunks)).toEqual(EXPECTED);
  });

  it('LF-only streams (the fast path) give the same frames for any three-way split', () => {
    const lf = 'event: a\ndata: {"x":"日本"}\n\n: c\n\ndata: l1\ndata: l2\n\nevent: b\ndata: [DONE]\n\n';
    const want: SseFrame[] = [
      { event: 'a', data: '{"x":"日本"}' },
      { event: undefined, data: 'l1\nl2' },
      { event: 'b', data: '[DONE]' },
    ];
    const bytes = Buffer.from(lf, 'utf8');
    for (let i = 0; i <= bytes.length; i++) {
      for (let j = i; j <= bytes.length; j++) {
        expect(parseAll([bytes.subarray(0, i), bytes.subarray(i, j), bytes.subarray(j)]), `split at ${i},${j}`).toEqual(want);
      }
    }
  });

  it('keeps empty data lines: alone a frame of empty data, before another line an empty first line', () => {
    expect(parseAll(['data:\n\n', 'event: e\ndata:\ndata: x\n\n', 'data: a\ndata:\ndata: b\n\n', 'event: only\n\ndata: z\n\n'])).toEqual([
      { event: undefined, data: '' },
      { event: 'e', data: '\nx' },
      { event: undefined, data: 'a\n\nb' },
      // An event line without data dispatches nothing and does not name the next frame.
      { event: undefined, data: 'z' },
    ]);
  });

  it('dispatches a last frame that lacks its blank line at end of input', () => {
    expect(parseAll(['event: x\ndata: {"y":2}'])).toEqual([{ event: 'x', data: '{"y":2}' }]);
  });

  it('a frame still unfinished past MAX_FRAME fails the stream once, with frames before it delivered', () => {
    const piece = 'x'.repeat(64 * 1024);
    // Both ways a frame can grow: one endless line, and endless data lines with no blank line.
    for (const shape of ['line', 'lines'] as const) {
      const frames: SseFrame[] = [];
      const errors: GatewayError[] = [];
      const p = new SseParser((f) => frames.push(f), (err) => errors.push(err));
      p.push('event: a\ndata: {"n":1}\n\nevent: big\ndata: ');
      let pushed = 0;
      while (errors.length === 0 && pushed < 2 * MAX_FRAME) {
        p.push(shape === 'line' ? piece : piece + '\ndata: ');
        pushed += piece.length;
      }
      expect(errors).toHaveLength(1);
      expect(errors[0]).toBeInstanceOf(GatewayError);
      expect(errors[0]!.message).toMatch(/over 16 MiB without ending it/);
      // Caught at the bound, not later.
      expect(pushed).toBeLessThanOrEqual(MAX_FRAME + 2 * piece.length);
      // Nothing more is taken, even a blank line that would end the frame.
      p.push('\n\nevent: c\ndata: {}\n\n');
      p.end();
      expect(frames).toEqual([{ event: 'a', data: '{"n":1}' }]);
      expect(errors).toHaveLength(1);
    }
  });

  it('frames that end are not bounded in total: MAX_FRAME is per unfinished frame', () => {
    const frames: SseFrame[] = [];
    const p = new SseParser((f) => frames.push(f), () => expect.fail('no frame is too large'));
    const frame = `data: ${'y'.repeat(1024 * 1024)}\n\n`;
    for (let i = 0; i < 20; i++) p.push(frame);
    expect(frames).toHaveLength(20);
  });

  it('without a failure callback, the oversized push throws the error', () => {
    const p = new SseParser(() => {});
    expect(() => p.push('data: ' + 'z'.repeat(MAX_FRAME + 1))).toThrow(/over 16 MiB/);
  });
});
