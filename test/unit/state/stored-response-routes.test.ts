// The stored-response routes through the official OpenAI SDK, on the memory and redis backends,
// against records saved directly through the repository (the request-path wiring comes separately).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI, { NotFoundError, BadRequestError, AuthenticationError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnswerRecord } from '../../../src/responses-store/stored-response.js';
import { startHarness, type Harness } from '../../support/gateway-harness.js';
import { startRedisServer, type RedisServer } from '../../support/redis-server.js';
import { requireTools } from '../../support/required-tools.js';

requireTools('redis-server');

const KEYS = { alice: 'sk-alice-0123456789', bob: 'sk-bob-0123456789' };

function storedRecord(id: string, owner: string): AnswerRecord {
  const response = {
    id,
    object: 'response',
    created_at: 1_763_700_000,
    status: 'completed',
    model: 'via-messages',
    output: [{ id: 'msg_out_' + id, type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'stored answer', annotations: [] }] }],
    usage: { input_tokens: 5, output_tokens: 2, total_tokens: 7 },
  };
  return {
    id,
    owner,
    createdAt: 1_763_700_000,
    responseJson: JSON.stringify(response),
    outputItemIds: response.output.map((o) => o.id),
    requestJson: JSON.stringify({ model: 'm', input: ['one', 'two', 'three', 'four', 'five'].map((t, i) => ({ id: `msg_in_${i + 1}`, role: 'user', content: t })) }),
    previous: [],
    answer: [{ type: 'text', text: 'stored answer' }],
    turns: [],
  };
}

function suite(name: string, stateConfig: () => Record<string, unknown> | undefined): void {
  describe(`stored-response routes (${name})`, () => {
    let h: Harness;
    let bob: OpenAI;
    beforeAll(async () => {
      h = await startHarness({
        apiKey: KEYS.alice,
        config: () => ({
          auth: { keys: [{ name: 'alice', key: KEYS.alice }, { name: 'bob', key: KEYS.bob }] },
          ...(stateConfig() ? { state: stateConfig() } : {}),
        }),
      });
      bob = new OpenAI({ baseURL: h.url + '/v1', apiKey: KEYS.bob, maxRetries: 0 });
      await h.gateway.ctx.responses.save(storedRecord('resp_stored_1', 'alice'));
      await h.gateway.ctx.responses.save(storedRecord('resp_stored_2', 'alice'));
    });
    afterAll(async () => {
      await h?.close();
    });

    it('retrieves a stored response exactly as it was returned', async () => {
      const r = await h.openai.responses.retrieve('resp_stored_1');
      expect(r).toMatchObject({ id: 'resp_stored_1', object: 'response', status: 'completed', model: 'via-messages' });
      expect(r.output_text).toBe('stored answer');
      expect(h.gateway.ctx.stateStore.backend).toBe(name);
    });

    it('answers 404 in the Responses envelope for unknown ids and for another key’s response', async () => {
      for (const [client, id] of [
        [h.openai, 'resp_nope'],
        [bob, 'resp_stored_1'],
      ] as const) {
        const err = await client.responses.retrieve(id).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(NotFoundError);
        const e = err as NotFoundError;
        expect(e.status).toBe(404);
        expect(e.message).toContain(`Response with id '${id}' not found.`);
        expect(e.type).toBe('invalid_request_error');
        expect(e.headers.get('x-request-id')).toBeTruthy();
      }
      expect(await bob.responses.inputItems.list('resp_stored_1').catch((e: unknown) => e)).toBeInstanceOf(NotFoundError);
      expect(await bob.responses.delete('resp_stored_1').catch((e: unknown) => e)).toBeInstanceOf(NotFoundError);
      // Bob's failed delete left alice's response alone.
      expect((await h.openai.responses.retrieve('resp_stored_1')).id).toBe('resp_stored_1');
    });

    it('refuses a caller without a valid key before touching the store', async () => {
      const stranger = new OpenAI({ baseURL: h.url + '/v1', apiKey: 'sk-wrong-0000000000', maxRetries: 0 });
      expect(await stranger.responses.retrieve('resp_stored_1').catch((e: unknown) => e)).toBeInstanceOf(AuthenticationError);
    });

    it('lists input items newest first by default, and pages through them with after/limit', async () => {
      const page = await h.openai.responses.inputItems.list('resp_stored_1');
      expect(page.data.map((i) => i.id)).toEqual(['msg_in_5', 'msg_in_4', 'msg_in_3', 'msg_in_2', 'msg_in_1']);
      expect(page.data[0]).toMatchObject({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'five' }] });

      const seen: string[] = [];
      for await (const item of h.openai.responses.inputItems.list('resp_stored_1', { limit: 2, order: 'asc' })) seen.push(item.id!);
      expect(seen).toEqual(['msg_in_1', 'msg_in_2', 'msg_in_3', 'msg_in_4', 'msg_in_5']);

      const raw = await fetch(`${h.url}/v1/responses/resp_stored_1/input_items?limit=2&after=msg_in_4`, { headers: { authorization: `Bearer ${KEYS.alice}` } });
      expect(await raw.json()).toMatchObject({ object: 'list', first_id: 'msg_in_3', last_id: 'msg_in_2', has_more: true });
    });

    it('names the bad list parameter in a 400', async () => {
      for (const [query, param] of [
        [{ limit: 0 }, 'limit'],
        [{ limit: 101 }, 'limit'],
        [{ order: 'sideways' }, 'order'],
        [{ after: 'msg_nowhere' }, 'after'],
      ] as const) {
        const err = await h.openai.responses.inputItems.list('resp_stored_1', query as never).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(BadRequestError);
        expect((err as BadRequestError).param).toBe(param);
        expect((err as BadRequestError).message).toContain(param + ':');
      }
    });

    it('deletes with OpenAI’s deletion object, after which the id is unknown', async () => {
      const raw = await fetch(`${h.url}/v1/responses/resp_stored_2`, { method: 'DELETE', headers: { authorization: `Bearer ${KEYS.alice}` } });
      expect(raw.status).toBe(200);
      expect(await raw.json()).toEqual({ id: 'resp_stored_2', object: 'response.deleted', deleted: true });
      expect(await h.openai.responses.retrieve('resp_stored_2').catch((e: unknown) => e)).toBeInstanceOf(NotFoundError);
      await h.gateway.ctx.responses.save(storedRecord('resp_stored_3', 'alice'));
      // Typed as void by the SDK; it must simply succeed.
      await h.openai.responses.delete('resp_stored_3');
      expect(await h.openai.responses.delete('resp_stored_3').catch((e: unknown) => e)).toBeInstanceOf(NotFoundError);
    });
  });
}

suite('memory', () => undefined);

const fileDir = mkdtempSync(join(tmpdir(), 'switchyard-routes-'));
afterAll(() => rmSync(fileDir, { recursive: true, force: true }));
suite('file', () => ({ backend: 'file', path: fileDir }));

let redis: RedisServer | undefined;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.stop();
});
suite('redis', () => ({ backend: 'redis', url: redis!.url, key_prefix: 'routes-test:' }));

describe('stored-response routes with the state store down', () => {
  it('answers 503 naming the state store, without leaking its address, and recovers', async () => {
    const server = await startRedisServer();
    const h = await startHarness({ config: () => ({ state: { backend: 'redis', url: server.url, op_timeout_ms: 800 } }) });
    try {
      await h.gateway.ctx.responses.save(storedRecord('resp_outage', 'anonymous'));
      expect((await h.openai.responses.retrieve('resp_outage')).id).toBe('resp_outage');
      await server.kill();
      const started = Date.now();
      const res = await fetch(`${h.url}/v1/responses/resp_outage`);
      expect(Date.now() - started).toBeLessThan(2500);
      expect(res.status).toBe(503);
      const body = (await res.json()) as { error: { message: string; type: string } };
      expect(body.error.message).toMatch(/^state store unavailable/);
      expect(body.error.message).not.toContain(String(server.port));
      expect(body.error.type).toBe('server_error');
      await server.start();
      const deadline = Date.now() + 10_000;
      let status = 0;
      while (Date.now() < deadline && status !== 404) {
        status = (await fetch(`${h.url}/v1/responses/resp_outage`)).status;
        if (status !== 404) await new Promise((r) => setTimeout(r, 100));
      }
      // Redis came back empty (no persistence): a clean 404, not a 503.
      expect(status).toBe(404);
    } finally {
      await h.close();
      await server.stop();
    }
  }, 30_000);
});
