// Per-provider timeouts: connect, first byte, idle gap between stream events, total. Before the first
// byte a timeout is a real status (and may fall back); after it, the protocol's error event — and the
// upstream request is aborted (its socket closed), not left running.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Harness } from '../../support/gateway-harness.js';
import type { Reply } from '../../support/scripted-upstream/index.js';
import { postSse } from '../../unit/support/raw-http.js';
import { generations, provider, routerHarness, startBlackhole, startTcpProxy, user, waitFor, type Blackhole, type TcpProxy } from './support.js';

const text = (t: string): Reply => ({ kind: 'reply', blocks: [{ type: 'text', text: t }] });
const stall = (ms: number): Reply => ({ kind: 'stall', afterBlocks: [{ type: 'text', text: 'before the silence' }], ms });

describe('router: timeouts', () => {
  let h: Harness;
  let proxy: TcpProxy;
  let blackhole: Blackhole;

  beforeAll(async () => {
    blackhole = await startBlackhole();
    // The idle providers go through a TCP proxy that shows when the gateway closes the upstream socket.
    proxy = await startTcpProxy();
    h = await routerHarness((url) => {
      proxy.target = url;
      return {
        providers: {
          'first-byte': provider('responses', url, { timeouts: { first_byte_ms: 150 } }),
          'idle-m': provider('messages', proxy.url, { timeouts: { idle_ms: 150 } }),
          'idle-r': provider('responses', proxy.url, { timeouts: { idle_ms: 150 } }),
          total: provider('messages', url, { timeouts: { total_ms: 300 } }),
          connect: provider('messages', blackhole.url, { timeouts: { connect_ms: 150 } }),
          backup: provider('responses', url),
        },
        models: {
          'first-byte': { provider: 'first-byte', model: 'gpt-slow' },
          'first-byte-fallback': { targets: [{ provider: 'first-byte', model: 'gpt-slow' }, { provider: 'backup', model: 'gpt-backup' }] },
          'idle-m': { provider: 'idle-m', model: 'claude-idle' },
          'idle-r': { provider: 'idle-r', model: 'gpt-idle' },
          total: { provider: 'total', model: 'claude-total' },
          connect: { provider: 'connect', model: 'claude-unreachable' },
          'connect-fallback': { targets: [{ provider: 'connect', model: 'claude-unreachable' }, { provider: 'backup', model: 'gpt-backup' }] },
        },
      };
    });
  });
  afterAll(async () => {
    await h.close();
    await proxy.close();
    blackhole.close();
  });
  beforeEach(() => {
    h.upstream.received.length = 0;
  });

  describe('first byte', () => {
    it('no headers within first_byte_ms: 504 to the caller, quickly', async () => {
      h.upstream.enqueue({ kind: 'delay-headers', ms: 4000, then: text('too late') });
      const t0 = Date.now();
      await expect(h.openai.responses.create({ model: 'first-byte', input: 'hi', store: false })).rejects.toMatchObject({ status: 504 });
      const elapsed = Date.now() - t0;
      expect(elapsed).toBeGreaterThanOrEqual(140);
      expect(elapsed).toBeLessThan(2500);
      expect(generations(h)).toHaveLength(1);
    });

    it('falls back to the next deployment after a first-byte timeout', async () => {
      h.upstream.enqueue({ kind: 'delay-headers', ms: 4000, then: text('too late') }, text('backup answered'));
      const { data, response } = await h.anthropic.messages.create({ model: 'first-byte-fallback', max_tokens: 10, messages: [user('hi')] }).withResponse();
      expect(data.content).toEqual([expect.objectContaining({ text: 'backup answered' })]);
      expect(response.headers.get('x-switchyard-model')).toBe('gpt-backup');
      expect(response.headers.get('x-switchyard-attempts')).toBe('2');
    });
  });

  describe('idle gap between stream events', () => {
    it('Messages caller, pass-through: `event: error` after idle_ms, and the upstream socket is closed', async () => {
      h.upstream.enqueue(stall(5000));
      const closedBefore = proxy.closed;
      const t0 = Date.now();
      const events = await postSse(h.url + '/v1/messages', { model: 'idle-m', max_tokens: 50, stream: true, messages: [user('hi')] });
      const elapsed = Date.now() - t0;
      const names = events.map((e) => e.event);
      expect(names[0]).toBe('message_start');
      expect(names[names.length - 1]).toBe('error');
      expect(names).not.toContain('message_stop');
      expect(elapsed).toBeLessThan(2500);
      await waitFor(() => proxy.closed > closedBefore, 1000, 'upstream socket closed');
      expect(generations(h)).toHaveLength(1);
    });

    it('Responses caller, pass-through: `error` + `response.failed`, and the upstream socket is closed', async () => {
      h.upstream.enqueue(stall(5000));
      const closedBefore = proxy.closed;
      const events = await postSse(h.url + '/v1/responses', { model: 'idle-r', input: 'hi', stream: true, store: false });
      const types = events.filter((e) => e.data.startsWith('{')).map((e) => JSON.parse(e.data).type as string);
      expect(types[0]).toBe('response.created');
      expect(types.slice(-2)).toEqual(['error', 'response.failed']);
      await waitFor(() => proxy.closed > closedBefore, 1000, 'upstream socket closed');
      expect(generations(h)).toHaveLength(1);
    });

    it('Messages caller, translation: `event: error`, and the upstream socket is closed', async () => {
      h.upstream.enqueue(stall(5000));
      const closedBefore = proxy.closed;
      const events = await postSse(h.url + '/v1/messages', { model: 'idle-r', max_tokens: 50, stream: true, messages: [user('hi')] });
      const names = events.map((e) => e.event);
      expect(names[0]).toBe('message_start');
      expect(names[names.length - 1]).toBe('error');
      await waitFor(() => proxy.closed > closedBefore, 1000, 'upstream socket closed');
      expect(generations(h)).toHaveLength(1);
    });

    it('a stream that keeps its events coming within idle_ms is left alone', async () => {
      h.upstream.enqueue(stall(60)); // well under idle_ms
      const events = await postSse(h.url + '/v1/messages', { model: 'idle-m', max_tokens: 50, stream: true, messages: [user('hi')] });
      expect(events[events.length - 1]!.event).toBe('message_stop');
    });
  });

  describe('total', () => {
    it('a stream running past total_ms ends with `event: error`', async () => {
      h.upstream.enqueue(stall(5000));
      const t0 = Date.now();
      const events = await postSse(h.url + '/v1/messages', { model: 'total', max_tokens: 50, stream: true, messages: [user('hi')] });
      const elapsed = Date.now() - t0;
      const names = events.map((e) => e.event);
      expect(names[0]).toBe('message_start');
      expect(names[names.length - 1]).toBe('error');
      expect(elapsed).toBeGreaterThanOrEqual(290);
      expect(elapsed).toBeLessThan(2500);
    });

    it('no answer within total_ms: 504 before the first byte', async () => {
      h.upstream.enqueue({ kind: 'delay-headers', ms: 3000, then: text('too late') });
      const t0 = Date.now();
      await expect(h.anthropic.messages.create({ model: 'total', max_tokens: 10, messages: [user('hi')] })).rejects.toMatchObject({ status: 504 });
      expect(Date.now() - t0).toBeLessThan(2000);
    });
  });

  describe('connect', () => {
    it('an upstream that never completes the handshake: 502 after connect_ms', async () => {
      const t0 = Date.now();
      await expect(h.anthropic.messages.create({ model: 'connect', max_tokens: 10, messages: [user('hi')] })).rejects.toMatchObject({ status: 502 });
      const elapsed = Date.now() - t0;
      expect(elapsed).toBeGreaterThanOrEqual(140);
      expect(elapsed).toBeLessThan(2500);
    });

    it('falls back to the next deployment after a connect timeout', async () => {
      h.upstream.enqueue(text('reachable'));
      const { data, response } = await h.anthropic.messages.create({ model: 'connect-fallback', max_tokens: 10, messages: [user('hi')] }).withResponse();
      expect(data.content).toEqual([expect.objectContaining({ text: 'reachable' })]);
      expect(response.headers.get('x-switchyard-attempts')).toBe('2');
    });
  });
});
