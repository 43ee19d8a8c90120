// Hot reload: BuiltApp.reload swaps the model table atomically, requests in flight finish on the table
// they started with, a bad file is refused (the running table stays), and a bounded load run sees zero
// failures while the configuration is swapped under it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { resolveConfig } from '../../../src/config/load-config.js';
import { createConfigReloader } from '../../../src/config/reload.js';
import { startHarness, type Harness } from '../../support/gateway-harness.js';
import { agentLoopReply, type Reply } from '../../support/scripted-upstream/index.js';
import { generations, provider, user, waitFor } from './support.js';

const text = (t: string): Reply => ({ kind: 'reply', blocks: [{ type: 'text', text: t }] });

/** Two valid tables over the same upstream: `live` goes to a Messages or a Responses deployment. */
function rawConfig(url: string, variant: 'one' | 'two', timeoutsMs = 60_000): Record<string, unknown> {
  return {
    server: { host: '127.0.0.1', port: 0 },
    log: { level: 'silent' },
    auth: { open: true },
    providers: {
      'up-m': provider('messages', url, { timeouts: { idle_ms: timeoutsMs } }),
      'up-r': provider('responses', url, { timeouts: { idle_ms: timeoutsMs } }),
    },
    models: {
      live: variant === 'one' ? { provider: 'up-m', model: 'claude-one' } : { provider: 'up-r', model: 'gpt-two' },
      [`only-${variant}`]: { provider: 'up-r', model: `gpt-only-${variant}` },
    },
  };
}

describe('router: hot reload', () => {
  let h: Harness;
  let url: string;

  beforeAll(async () => {
    h = await startHarness({
      config: (u) => {
        url = u;
        const { providers, models } = rawConfig(u, 'one');
        return { providers, models };
      },
    });
  });
  afterAll(async () => {
    await h.close();
  });
  beforeEach(() => {
    h.upstream.received.length = 0;
    h.upstream.setDefault(agentLoopReply);
    h.gateway.reload(resolveConfig(rawConfig(url, 'one'), 'one'));
  });

  it('swaps the table: the next request follows the new one', async () => {
    h.upstream.enqueue(text('one'), text('two'));
    const a = await h.anthropic.messages.create({ model: 'live', max_tokens: 10, messages: [user('hi')] }).withResponse();
    expect(a.response.headers.get('x-switchyard-model')).toBe('claude-one');
    h.gateway.reload(resolveConfig(rawConfig(url, 'two'), 'two'));
    const b = await h.anthropic.messages.create({ model: 'live', max_tokens: 10, messages: [user('hi')] }).withResponse();
    expect(b.response.headers.get('x-switchyard-model')).toBe('gpt-two');
    expect(generations(h).map((r) => [r.protocol, r.body.model])).toEqual([
      ['messages', 'claude-one'],
      ['responses', 'gpt-two'],
    ]);
    // Aliases come and go with the table.
    await expect(h.anthropic.messages.create({ model: 'only-one', max_tokens: 10, messages: [user('hi')] })).rejects.toMatchObject({ status: 404 });
    const models = await h.openai.models.list();
    expect(models.data.map((m) => m.id)).toEqual(['live', 'only-two']);
  });

  it('a request in flight finishes on the table it started with', async () => {
    h.upstream.enqueue({ kind: 'stall', afterBlocks: [{ type: 'text', text: 'old table ' }], ms: 300 }, text('new table'));
    const stream = h.anthropic.messages.stream({ model: 'live', max_tokens: 10, messages: [user('slow')] });
    await waitFor(() => generations(h).length === 1, 3000, 'first request upstream');
    h.gateway.reload(resolveConfig(rawConfig(url, 'two', 30_000), 'two')); // also retires the old pool
    const fresh = await h.anthropic.messages.create({ model: 'live', max_tokens: 10, messages: [user('fast')] });
    expect(fresh.content).toEqual([expect.objectContaining({ text: 'new table' })]);
    const old = await stream.finalMessage();
    expect(old.stop_reason).toBe('end_turn');
    expect(old.content.map((b) => (b.type === 'text' ? b.text : '')).join('')).toContain('old table');
    expect(stream.response?.headers.get('x-switchyard-model')).toBe('claude-one');
    expect(generations(h).map((r) => r.body.model)).toEqual(['claude-one', 'gpt-two']);
  });

  it('reloads do not accumulate connection pools', async () => {
    for (let i = 0; i < 5; i++) {
      h.gateway.reload(resolveConfig(rawConfig(url, i % 2 ? 'one' : 'two', 10_000 + i), 'n'));
      h.upstream.enqueue(text('x'));
      await h.anthropic.messages.create({ model: 'live', max_tokens: 10, messages: [user('hi')] });
    }
    expect(h.gateway.ctx.http.poolCount).toBe(1);
  });

  it('a bad file is refused and the running table stays; a good one is then applied', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchyard-hot-'));
    const file = join(dir, 'switchyard.yaml');
    const errors: string[] = [];
    writeFileSync(file, stringify(rawConfig(url, 'one')));
    const reloader = createConfigReloader({
      file,
      env: {},
      apply: (c) => h.gateway.reload(c),
      logger: { info: () => {}, error: (o) => void errors.push((o as { error: string }).error) },
      debounceMs: 20,
    });
    reloader.watch();
    try {
      writeFileSync(file, 'providers:\n  up-m: { protocol: messages }\nmodels: {}\n'); // base_url missing
      await waitFor(() => errors.length === 1, 3000, 'refusal');
      expect(errors[0]).toContain('providers.up-m.base_url');
      h.upstream.enqueue(text('still one'));
      const a = await h.anthropic.messages.create({ model: 'live', max_tokens: 10, messages: [user('hi')] }).withResponse();
      expect(a.response.headers.get('x-switchyard-model')).toBe('claude-one');

      writeFileSync(file, stringify(rawConfig(url, 'two')));
      await waitFor(() => h.gateway.ctx.config.source === file, 3000, 'reload');
      h.upstream.enqueue(text('now two'));
      const b = await h.anthropic.messages.create({ model: 'live', max_tokens: 10, messages: [user('hi')] }).withResponse();
      expect(b.response.headers.get('x-switchyard-model')).toBe('gpt-two');
    } finally {
      reloader.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('under load: 300 requests, 20 at a time, with the table swapped 6 times: zero failures', async () => {
    h.upstream.setDefault(() => ({ ...text('load'), usage: { input: 5, output: 2 } }));
    const total = 300;
    const concurrency = 20;
    let next = 0;
    let ok = 0;
    const failures: unknown[] = [];
    const byModel = new Map<string, number>();
    const worker = async (w: number) => {
      while (next < total) {
        const i = next++;
        try {
          const stream = i % 2 === 0;
          const params = { model: 'live', max_tokens: 10, messages: [user(`req ${i} w${w}`)] };
          const msg = stream ? await h.anthropic.messages.stream(params).finalMessage() : await h.anthropic.messages.create(params);
          if (msg.content[0]?.type === 'text' && msg.content[0].text === 'load' && msg.model === 'live') ok++;
          else failures.push(msg);
        } catch (err) {
          failures.push(err);
        }
      }
    };
    const swapper = (async () => {
      for (let s = 0; s < 6; s++) {
        await waitFor(() => next >= (s + 1) * 40, 20_000, `progress for swap ${s}`);
        h.gateway.reload(resolveConfig(rawConfig(url, s % 2 === 0 ? 'two' : 'one', 20_000 + s), `swap-${s}`));
      }
    })();
    await Promise.all([...Array.from({ length: concurrency }, (_, w) => worker(w)), swapper]);
    for (const r of generations(h)) byModel.set(r.body.model, (byModel.get(r.body.model) ?? 0) + 1);
    expect(failures).toEqual([]);
    expect(ok).toBe(total);
    // Both tables really served traffic.
    expect(byModel.get('claude-one')).toBeGreaterThan(0);
    expect(byModel.get('gpt-two')).toBeGreaterThan(0);
    expect(generations(h)).toHaveLength(total);
  }, 60_000);
});
