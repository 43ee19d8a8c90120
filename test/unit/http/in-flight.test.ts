import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { InFlight } from '../../../src/http/in-flight.js';

const res = (ended = false) => ({ writableEnded: ended }) as unknown as ServerResponse;

describe('InFlight: the requests a drain waits for and cuts', () => {
  it('counts entries in and out in any order, and leaving twice changes nothing', () => {
    const f = new InFlight();
    const a = f.enter('messages', res());
    const b = f.enter('responses', res());
    const c = f.enter('messages', res());
    expect(f.size).toBe(3);
    f.leave(b); // the middle
    f.leave(b);
    expect(f.size).toBe(2);
    f.leave(c); // the head
    f.leave(a); // the last
    expect(f.size).toBe(0);
    const d = f.enter('messages', res());
    expect(f.size).toBe(1);
    f.leave(d);
    expect(f.size).toBe(0);
  });

  it('cut ends every unfinished entry once, aborting its upstream call, and counts them per door', () => {
    const f = new InFlight();
    const aborted: string[] = [];
    const gen = () => ({ shutdownCut: false, upstreamAbort: { abort: (why: 'shutdown') => void aborted.push(why) } });
    const a = f.enter('messages', res());
    a.gen = gen();
    f.enter('responses', res()); // still in its preamble: no Generation yet
    f.enter('responses', res(true)); // past its last byte: left to finish
    expect(f.cut()).toEqual({ messages: 1, responses: 1, chat: 0, gemini: 0 });
    expect(a.gen.shutdownCut).toBe(true);
    expect(aborted).toEqual(['shutdown']);
    expect(f.cut()).toEqual({ messages: 0, responses: 0, chat: 0, gemini: 0 });
  });

  it('idle resolves once the last entry leaves, or false at its bound', async () => {
    const f = new InFlight();
    expect(await f.idle(10)).toBe(true);
    const a = f.enter('messages', res());
    const waiting = f.idle(5_000);
    setTimeout(() => f.leave(a), 20);
    expect(await waiting).toBe(true);
    f.enter('messages', res());
    expect(await f.idle(20)).toBe(false);
  });
});
