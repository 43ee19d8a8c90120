// When the translation lane streams its upstream call: `stream_upstream` as configured, and `auto`'s bound.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load-config.js';
import { AUTO_UNSTREAMED_MAX_TOKENS, upstreamStreams } from '../../../src/router/upstream-streaming.js';
import type { IrRequest } from '../../../src/ir/types.js';

function providers(setting: string) {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-stream-upstream-'));
  const file = join(dir, 'config.yaml');
  writeFileSync(
    file,
    `auth: { open: true }\nproviders:\n  up: { protocol: chat, base_url: "http://127.0.0.1:1/v1"${setting} }\nmodels:\n  m: { provider: up }\n`,
  );
  return loadConfig({ file, env: {} }).providers;
}

const provider = (setting: string) => providers(setting).get('up')!;

function ir(stream: boolean, maxOutputTokens?: number): IrRequest {
  return { stream, maxOutputTokens } as IrRequest;
}

describe('stream_upstream', () => {
  it('maps true/false/auto/absent onto always/never/auto', () => {
    expect(provider(', stream_upstream: true').streamUpstream).toBe('always');
    expect(provider(', stream_upstream: false').streamUpstream).toBe('never');
    expect(provider(', stream_upstream: auto').streamUpstream).toBe('auto');
    expect(provider('').streamUpstream).toBe('auto');
  });

  it('streams every streamed caller, whatever the setting', () => {
    for (const s of [', stream_upstream: false', ', stream_upstream: true', '']) expect(upstreamStreams(provider(s), ir(true, 10))).toBe(true);
  });

  it('auto: one body for a short bounded answer, a stream for an unbounded or long one', () => {
    const p = provider('');
    expect(upstreamStreams(p, ir(false, 1024))).toBe(false);
    expect(upstreamStreams(p, ir(false, AUTO_UNSTREAMED_MAX_TOKENS))).toBe(false);
    expect(upstreamStreams(p, ir(false, AUTO_UNSTREAMED_MAX_TOKENS + 1))).toBe(true);
    expect(upstreamStreams(p, ir(false, undefined))).toBe(true);
  });

  it('true and false override the bound for non-streamed callers', () => {
    expect(upstreamStreams(provider(', stream_upstream: true'), ir(false, 10))).toBe(true);
    expect(upstreamStreams(provider(', stream_upstream: false'), ir(false, undefined))).toBe(false);
  });
});
