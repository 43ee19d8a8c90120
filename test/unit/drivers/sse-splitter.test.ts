// The pass-through relay's frame splitter against the frame-by-frame path it replaced (SseParser, then
// every frame re-serialised): for every recorded upstream stream, any chunk split and the odd framings
// the SSE spec allows, the bytes a relay writes must be exactly what that path wrote.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { sseFrame } from '../../../src/codecs/sse.js';
import { MAX_FRAME, SseParser } from '../../../src/drivers/sse-parser.js';
import type { GatewayError } from '../../../src/errors.js';
import { SseSplitter } from '../../../src/drivers/sse-splitter.js';

const FIXTURES = join(import.meta.dirname, '../../fixtures/upstream');

/** What the old relay wrote: each parsed frame re-serialised (`message` for a frame without a name). */
function reference(bytes: Buffer): string {
  let out = '';
  const p = new SseParser((f) => (out += sseFrame(f.event ?? 'message', f.data)));
  p.push(bytes);
  p.end();
  return out;
}

interface Split {
  out: Buffer;
  raw: number;
  parsed: number;
  flushes: number;
  events: string[];
}

/** What a relay that writes untouched frames as bytes and parsed ones re-serialised would write. */
function split(chunks: Buffer[]): Split {
  const parts: Buffer[] = [];
  const result: Split = { out: Buffer.alloc(0), raw: 0, parsed: 0, flushes: 0, events: [] };
  const s = new SseSplitter({
    raw(event, data, buf, start, end) {
      result.raw++;
      result.events.push(event);
      // The data view is the frame's own data line.
      expect(buf.subarray(start, end).toString('utf8')).toBe(sseFrame(event, data.text()));
      parts.push(Buffer.from(buf.subarray(start, end)));
    },
    parsed(f) {
      result.parsed++;
      result.events.push(f.event ?? 'message');
      parts.push(Buffer.from(sseFrame(f.event ?? 'message', f.data), 'utf8'));
    },
    flush() {
      result.flushes++;
    },
  });
  for (const c of chunks) s.push(c);
  s.end();
  result.out = Buffer.concat(parts);
  return result;
}

const fixtures = readdirSync(FIXTURES).flatMap((dir) =>
  readdirSync(join(FIXTURES, dir))
    .filter((f) => f.endsWith('.sse'))
    .map((f) => [`${dir}/${f}`, readFileSync(join(FIXTURES, dir, f))] as const),
);

const ODD =
  'event: message_start\ndata: {"type":"message_start","message":{"text":"h\\u00e9llo ✓ 日本"}}\n\n' +
  ': keep-alive comment\n\n' +
  'event:no_space\ndata: {"a":1}\n\n' +
  'event: two_lines\ndata: {"a":\ndata: 1}\n\n' +
  'data: {"no":"event"}\n\n' +
  'event: padded\ndata:  {"a":2} \n\n' +
  'id: 7\nevent: with_id\ndata: {"a":3}\n\n' +
  'event: not_json\ndata: upstream exploded\n\n\n\n' +
  'event: empty-data-ignored\n\n' +
  'event: content_block_delta\ndata: {"text":"日本語 ✓"}\n\n' +
  'data: [DONE]\n\n' +
  'event: unterminated\ndata: {"last":true}';

describe('SseSplitter', () => {
  it.each(fixtures)('%s: the same bytes as the frame-by-frame path, for a split at every offset', (_name, bytes) => {
    const want = reference(bytes);
    expect(split([bytes]).out.toString('utf8')).toBe(want);
    for (let i = 1; i < bytes.length; i++) {
      const got = split([bytes.subarray(0, i), bytes.subarray(i)]);
      if (got.out.toString('utf8') !== want) expect(got.out.toString('utf8'), `split at ${i}`).toBe(want);
    }
  });

  it('relays vendors’ frames as bytes: of a recorded Anthropic or Responses stream only a `[DONE]` marker is parsed', () => {
    for (const [name, bytes] of fixtures) {
      // Chat and Gemini are never passed through (no front door), and Gemini frames end in CRLF.
      if (name.startsWith('openai-chat/') || name.startsWith('gemini/')) continue;
      const got = split([bytes]);
      expect(got.parsed, name).toBe(bytes.includes('data: [DONE]') ? 1 : 0);
      expect(got.raw, name).toBeGreaterThan(2);
    }
  });

  it('odd framings (comments, no space, multi-line data, ids, no event, padding, markers, no final blank line) match byte for byte at every split', () => {
    const bytes = Buffer.from(ODD, 'utf8');
    const want = reference(bytes);
    const whole = split([bytes]);
    expect(whole.out.toString('utf8')).toBe(want);
    // The usual frames went as bytes; the rest was parsed.
    expect(whole.events).toEqual(['message_start', 'no_space', 'two_lines', 'message', 'padded', 'with_id', 'not_json', 'content_block_delta', 'message', 'unterminated']);
    expect(whole.raw).toBe(2);
    for (let i = 1; i < bytes.length; i++) {
      for (const j of [i + 1, i + 7, i + 40]) {
        if (j >= bytes.length) continue;
        const got = split([bytes.subarray(0, i), bytes.subarray(i, j), bytes.subarray(j)]).out.toString('utf8');
        if (got !== want) expect(got, `split at ${i},${j}`).toBe(want);
      }
    }
  });

  it('one byte at a time', () => {
    const bytes = Buffer.from(ODD, 'utf8');
    const chunks: Buffer[] = [];
    for (let i = 0; i < bytes.length; i++) chunks.push(bytes.subarray(i, i + 1));
    expect(split(chunks).out.toString('utf8')).toBe(reference(bytes));
  });

  it('CRLF and CR line endings: parsed from the first \\r on, frames before it still relayed as bytes', () => {
    const lf = 'event: a\ndata: {"n":1}\n\n';
    const crlf = 'event: b\r\ndata: {"n":2}\r\n\r\nevent: c\rdata: {"n":3}\r\rdata: {"n":4}\r\n\r\n';
    const bytes = Buffer.from(lf + crlf, 'utf8');
    const want = reference(bytes);
    expect(want).toBe('event: a\ndata: {"n":1}\n\nevent: b\ndata: {"n":2}\n\nevent: c\ndata: {"n":3}\n\nevent: message\ndata: {"n":4}\n\n');
    const got = split([bytes.subarray(0, lf.length), bytes.subarray(lf.length)]);
    expect(got.out.toString('utf8')).toBe(want);
    expect(got.raw).toBe(1);
    for (let i = 1; i < bytes.length; i++) {
      expect(split([bytes.subarray(0, i), bytes.subarray(i)]).out.toString('utf8'), `split at ${i}`).toBe(want);
    }
    // A \r\n split between chunks is one line break, not two.
    const at = lf.length + 'event: b\r'.length;
    expect(split([bytes.subarray(0, at), bytes.subarray(at)]).out.toString('utf8')).toBe(want);
  });

  it('a byte-order mark at the start is dropped, as the SSE spec says', () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('event: a\ndata: {"n":1}\n\n')]);
    expect(split([bytes]).out.toString('utf8')).toBe('event: a\ndata: {"n":1}\n\n');
    expect(split([bytes.subarray(0, 1), bytes.subarray(1)]).out.toString('utf8')).toBe('event: a\ndata: {"n":1}\n\n');
  });

  it('hands a run of frames over as ranges of the chunk they came in, and flushes once per chunk', () => {
    const frames = 'event: a\ndata: {"n":1}\n\nevent: b\ndata: {"n":2}\n\n';
    const chunk = Buffer.from(frames + 'event: c\ndata: {"n"', 'utf8');
    const ranges: [Buffer, number, number][] = [];
    let flushes = 0;
    const s = new SseSplitter({
      raw: (_e, _d, buf, start, end) => ranges.push([buf, start, end]),
      parsed: () => undefined,
      flush: () => flushes++,
    });
    s.push(chunk);
    expect(ranges.map(([b, st, e]) => [b === chunk, st, e])).toEqual([
      [true, 0, 24],
      [true, 24, 48],
    ]);
    expect(flushes).toBe(1);
    // The held start of frame c completes with the next chunk.
    s.push(Buffer.from(':3}\n\n', 'utf8'));
    expect(ranges[2]![0].subarray(ranges[2]![1], ranges[2]![2]).toString()).toBe('event: c\ndata: {"n":3}\n\n');
    expect(flushes).toBe(2);
  });

  it('a large frame spread over many chunks is assembled once (no quadratic re-copying)', () => {
    const big = 'event: response.completed\ndata: {"text":"' + 'x'.repeat(1 << 20) + '"}\n\n';
    const bytes = Buffer.from(big, 'utf8');
    const chunks: Buffer[] = [];
    for (let i = 0; i < bytes.length; i += 1024) chunks.push(bytes.subarray(i, i + 1024));
    const t0 = performance.now();
    const got = split(chunks);
    expect(got.raw).toBe(1);
    expect(got.out.equals(bytes)).toBe(true);
    // 1,025 chunks of 1 KiB: re-concatenating the held part per chunk would copy ~512 MiB.
    expect(performance.now() - t0).toBeLessThan(2000);
  });
});

describe('SseSplitter bound', () => {
  /** Feeds `head` then `piece` until the splitter fails (or twice the bound); what it handed over. */
  function overflow(head: string, piece: Buffer) {
    const raw: string[] = [];
    const errors: GatewayError[] = [];
    let flushesBeforeFail = 0;
    let flushes = 0;
    const s = new SseSplitter({
      raw(_event, data) {
        raw.push(data.text());
      },
      parsed(f) {
        raw.push(f.data);
      },
      flush() {
        flushes++;
      },
      fail(err) {
        flushesBeforeFail = flushes;
        errors.push(err);
      },
    });
    s.push(Buffer.from(head, 'utf8'));
    let pushed = 0;
    while (errors.length === 0 && pushed < 2 * MAX_FRAME) {
      s.push(piece);
      pushed += piece.length;
    }
    s.push(Buffer.from('\n\nevent: after\ndata: {"n":9}\n\n'));
    s.end();
    return { raw, errors, pushed, flushesBeforeFail };
  }

  it('a frame without its blank line fails the stream at MAX_FRAME bytes, once, after the frames before it', () => {
    const got = overflow('event: a\ndata: {"n":1}\n\nevent: big\ndata: {"t":"', Buffer.alloc(64 * 1024, 0x78));
    expect(got.errors).toHaveLength(1);
    expect(got.errors[0]!.message).toMatch(/over 16 MiB without ending it/);
    expect(got.pushed).toBeLessThanOrEqual(MAX_FRAME + 2 * 64 * 1024);
    expect(got.raw).toEqual(['{"n":1}']);
    expect(got.flushesBeforeFail).toBeGreaterThan(0);
  });

  it('the same bound holds once the stream is parsed whole (a \\r was seen)', () => {
    const got = overflow('event: a\r\ndata: {"n":1}\r\n\r\nevent: big\r\ndata: ', Buffer.alloc(64 * 1024, 0x78));
    expect(got.errors).toHaveLength(1);
    expect(got.pushed).toBeLessThanOrEqual(MAX_FRAME + 2 * 64 * 1024);
    expect(got.raw).toEqual(['{"n":1}']);
  });
});

describe('SseSplitter memory', () => {
  // A paced stream's next chunk is a second away: a chunk held until then outlives two scavenges and is
  // promoted, for every stream and every event (bench/profiles.md, issue 25 sixth session).
  it('lets go of a chunk once its frames are handed over', async () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    let seen = '';
    const splitter = new SseSplitter({
      raw(_event, data) {
        seen += data.text();
      },
      parsed() {},
      flush() {},
    });
    let chunk: Buffer | undefined = Buffer.from('event: content_block_delta\ndata: {"type":"content_block_delta","index":0}\n\n');
    const held = new WeakRef(chunk);
    splitter.push(chunk);
    chunk = undefined;
    // A WeakRef keeps its target until the job that made it ends.
    await new Promise((r) => setImmediate(r));
    gc();
    expect(seen).toBe('{"type":"content_block_delta","index":0}');
    expect(held.deref()).toBeUndefined();
    // The splitter still works after letting go.
    splitter.push(Buffer.from('event: ping\ndata: {"type":"ping"}\n\n'));
    expect(seen).toBe('{"type":"content_block_delta","index":0}{"type":"ping"}');
  });
});
