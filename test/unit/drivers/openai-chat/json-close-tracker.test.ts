import { describe, expect, it } from 'vitest';
import { JsonCloseTracker } from '../../../../src/drivers/openai-chat/json-close-tracker.js';

function closedAfter(fragments: string[]): boolean[] {
  const tracker = new JsonCloseTracker();
  return fragments.map((f) => {
    tracker.feed(f);
    return tracker.closed;
  });
}

describe('JsonCloseTracker', () => {
  it('is closed only once the top-level object has closed, across fragment boundaries', () => {
    expect(closedAfter(['', '{"a":', '[1,{"b":2}', ']', '}'])).toEqual([false, false, false, false, true]);
  });

  it('ignores brackets and escaped quotes inside strings, also when the escape is split', () => {
    expect(closedAfter(['{"s":"}]{\\', '"', '}"', '}'])).toEqual([false, false, false, true]);
  });

  it('reset() forgets the previous call', () => {
    const tracker = new JsonCloseTracker();
    tracker.feed('{}');
    expect(tracker.closed).toBe(true);
    tracker.reset();
    expect(tracker.closed).toBe(false);
    tracker.feed('{"x":"');
    expect(tracker.closed).toBe(false);
  });
});
