// jsonString must always equal JSON.stringify: from the memo (the same text again, a different string
// object with equal content), after eviction, and for texts too short or too long to be remembered.
import { describe, expect, it } from 'vitest';
import { jsonString } from '../../../src/codecs/json-string-memo.js';

const prompt = (i: number) => `You are agent ${i}. Say "hi"\n\tthen \\ stop. \u2028 \ud800 🚀 `.repeat(12);

describe('jsonString', () => {
  it('equals JSON.stringify for short, remembered, evicted and over-long texts', () => {
    for (const text of ['', 'short "q"\n', prompt(0), prompt(0), 'x'.repeat(70_000) + '"']) {
      expect(jsonString(text)).toBe(JSON.stringify(text));
    }
    // A fresh string with the same content (as each request parses its own) hits the remembered one.
    const fresh = JSON.parse(JSON.stringify(prompt(1))) as string;
    expect(jsonString(prompt(1))).toBe(JSON.stringify(prompt(1)));
    expect(jsonString(fresh)).toBe(JSON.stringify(fresh));
    // More distinct texts than slots: the oldest are evicted and still serialise correctly.
    for (let i = 0; i < 30; i++) expect(jsonString(prompt(i))).toBe(JSON.stringify(prompt(i)));
    for (let i = 29; i >= 0; i--) expect(jsonString(prompt(i))).toBe(JSON.stringify(prompt(i)));
  });

  it('texts differing only in their last character are not confused', () => {
    const base = prompt(2);
    const other = base.slice(0, -1) + '!';
    expect(jsonString(base)).toBe(JSON.stringify(base));
    expect(jsonString(other)).toBe(JSON.stringify(other));
    expect(jsonString(base)).toBe(JSON.stringify(base));
  });
});
