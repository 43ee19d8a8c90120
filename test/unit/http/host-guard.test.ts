// The Host/Origin rule itself (http/host-guard.ts): names, suffixes, IP literals, the listening host,
// ports and case ignored, Origin stricter than Host about IP addresses.
import { describe, expect, it } from 'vitest';
import { foreignRequest, hostRule } from '../../../src/http/host-guard.js';

const judge = (listen: string, allowed: string[], headers: Record<string, string>) => foreignRequest(hostRule(listen, allowed), headers);

describe('Host', () => {
  const cases: [string, string[], string, boolean][] = [
    ['127.0.0.1', [], '127.0.0.1:8080', true],
    ['127.0.0.1', [], 'localhost', true],
    ['127.0.0.1', [], 'Localhost.:1', true],
    ['127.0.0.1', [], 'a.b.localhost:1', true],
    ['127.0.0.1', [], 'localhost.evil.example', false],
    ['127.0.0.1', [], 'evil.example:8080', false],
    ['127.0.0.1', [], '[::1]:8080', true],
    ['127.0.0.1', [], '[fd00::7]', true],
    ['127.0.0.1', [], '10.0.0.7:8080', true],
    ['127.0.0.1', [], '127.0.0.1.nip.io', false],
    ['127.0.0.1', [], '', false],
    ['gw.internal', [], 'GW.internal:8080', true],
    ['0.0.0.0', [], '0.0.0.0', true],
    ['0.0.0.0', [], 'gw.internal', false],
    ['::', [], 'gw.internal', false],
    ['::1', [], '[::1]:9', true],
    ['0.0.0.0', ['gw.example.com'], 'gw.example.com:443', true],
    ['0.0.0.0', ['*.example.com'], 'a.example.com', true],
    ['0.0.0.0', ['*.example.com'], 'example.com', false],
    ['0.0.0.0', ['*.example.com'], 'a.example.com.evil', false],
    ['0.0.0.0', ['*'], 'anything.example', true],
  ];
  for (const [listen, allowed, host, ok] of cases) {
    it(`${host} on ${listen} ${JSON.stringify(allowed)}: ${ok ? 'served' : 'refused'}`, () => {
      const why = judge(listen, allowed, { host });
      if (ok) expect(why).toBeUndefined();
      else expect(why).toMatch(/^Host ".*" is not allowed/);
    });
  }
  it('no Host at all (HTTP/1.0, not a browser) is served', () => {
    expect(judge('127.0.0.1', [], {})).toBeUndefined();
  });
  it('bounds the echoed value', () => {
    expect(judge('127.0.0.1', [], { host: 'x'.repeat(500) })!.length).toBeLessThan(300);
  });
});

describe('Origin and Sec-Fetch-Site', () => {
  const cases: [string, string, boolean][] = [
    ['127.0.0.1:8080', 'http://127.0.0.1:8080', true],
    ['127.0.0.1:8080', 'http://localhost:3000', true],
    ['127.0.0.1:8080', 'https://app.localhost', true],
    ['127.0.0.1:8080', 'http://[::1]:3000', true],
    ['10.0.0.7:8080', 'http://10.0.0.7:8080', true],
    ['10.0.0.7:8080', 'http://10.0.0.8:8080', false],
    ['127.0.0.1:8080', 'http://203.0.113.9', false],
    ['127.0.0.1:8080', 'https://evil.example', false],
    ['127.0.0.1:8080', 'null', false],
    ['127.0.0.1:8080', 'chrome-extension://abc', false],
    ['127.0.0.1:8080', 'not a url', false],
  ];
  for (const [host, origin, ok] of cases) {
    it(`${origin} to ${host}: ${ok ? 'served' : 'refused'}`, () => {
      const why = judge('127.0.0.1', [], { host, origin });
      if (ok) expect(why).toBeUndefined();
      else expect(why).toMatch(/^Origin ".*" is not allowed/);
    });
  }
  it('an allowed name is an allowed Origin', () => {
    expect(judge('0.0.0.0', ['*.example.com'], { host: '10.0.0.7', origin: 'https://ui.example.com' })).toBeUndefined();
  });
  it('Sec-Fetch-Site: cross-site without an Origin is refused; same-site and none are not', () => {
    expect(judge('127.0.0.1', [], { host: 'localhost', 'sec-fetch-site': 'cross-site' })).toMatch(/cross-site/);
    for (const site of ['same-origin', 'same-site', 'none']) expect(judge('127.0.0.1', [], { host: 'localhost', 'sec-fetch-site': site })).toBeUndefined();
  });
});
