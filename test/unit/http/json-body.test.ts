import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/errors.js';
import { MAX_JSON_DEPTH, Scan, parseJsonBody, scanJson } from '../../../src/http/json-body.js';

const nest = (n: number, inner = '1'): string => '['.repeat(n) + inner + ']'.repeat(n);

function refusal(text: string): GatewayError {
  try {
    parseJsonBody(text);
  } catch (err) {
    expect(err).toBeInstanceOf(GatewayError);
    return err as GatewayError;
  }
  throw new Error('expected a refusal');
}

describe('scanJson: nesting depth on the raw text', () => {
  it('counts arrays and objects, up to and past the limit', () => {
    expect(scanJson(nest(5), 5)).toBe(Scan.Ok);
    expect(scanJson(nest(6), 5)).toBe(Scan.TooDeep);
    expect(scanJson('{"a":{"b":{"c":[1]}}}', 4)).toBe(Scan.Ok);
    expect(scanJson('{"a":{"b":{"c":[1]}}}', 3)).toBe(Scan.TooDeep);
    // Siblings do not add up: depth, not count.
    expect(scanJson('[' + '[1],'.repeat(1000) + '[1]]', 2)).toBe(Scan.Ok);
  });

  it('ignores brackets inside strings, escaped quotes and escaped backslashes included', () => {
    expect(scanJson('{"a":"[[[[[{{{{"}', 1)).toBe(Scan.Ok);
    expect(scanJson('{"a":"x\\"[[[[[["}', 1)).toBe(Scan.Ok);
    expect(scanJson('{"a\\\\":[[1]]}', 2)).toBe(Scan.TooDeep);
    expect(scanJson('{"a":"\\\\\\"[[[["}', 1)).toBe(Scan.Ok);
    expect(scanJson(`{"t":"${'x'.repeat(100_000)}[[["}`, 1)).toBe(Scan.Ok);
  });

  it('spots a "__proto__" string', () => {
    expect(scanJson('{"__proto__":{}}', 8)).toBe(Scan.ProtoKey);
    expect(scanJson('{"a":"__proto__ is a word"}', 8)).toBe(Scan.Ok);
  });
});

describe('parseJsonBody', () => {
  it('parses ordinary bodies and bodies at the limit', () => {
    expect(parseJsonBody('{"model":"m","n":[1,{"x":true}]}')).toEqual({ model: 'm', n: [1, { x: true }] });
    expect(parseJsonBody(nest(MAX_JSON_DEPTH))).toBeInstanceOf(Array);
  });

  it('refuses 10,000 levels with a 400 naming the limit, without touching JSON.parse', () => {
    for (const deep of [nest(10_000), '{"a":' + nest(10_000) + '}', '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000)]) {
      const err = refusal(deep);
      expect(err.kind).toBe('invalid_request');
      expect(err.message).toBe(`request body is nested deeper than ${MAX_JSON_DEPTH} levels`);
    }
    expect(refusal(nest(MAX_JSON_DEPTH + 1)).kind).toBe('invalid_request');
  });

  it('refuses "__proto__" keys, plain or escaped, and keeps the same text as a value', () => {
    expect(refusal('{"a":{"__proto__":{"polluted":1}}}').message).toContain('__proto__');
    expect(refusal('{"\\u005f_proto__":{"polluted":1}}').message).toContain('__proto__');
    expect(parseJsonBody('{"a":"__proto__"}')).toEqual({ a: '__proto__' });
    expect(parseJsonBody('{"caf\\u00e9":"\\u0070"}')).toEqual({ café: 'p' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('says what is wrong with a body that is not JSON, or empty', () => {
    expect(refusal('{"a":').message).toMatch(/^request body is not valid JSON: /);
    expect(refusal('').message).toBe('request body is empty; expected a JSON object');
    expect(refusal('{"a":"unterminated').kind).toBe('invalid_request');
  });
});
