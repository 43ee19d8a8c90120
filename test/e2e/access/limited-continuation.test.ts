// A limited key's `previous_response_id` on Redis (issue 25: admissions and settles batched into one
// script call per event-loop turn): an admitted continuation carries the stored conversation to the
// upstream; a refused one answers its refusal (429), whatever the id, and nothing goes upstream.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODELS, startHarness, type Harness } from '../../support/gateway-harness.js';
import { startRedisServer, type RedisServer } from '../../support/redis-server.js';
import { requireTools } from '../../support/required-tools.js';
import { echoMarkers, marker, responsesTurn } from '../../support/responses-chain.js';

requireTools('redis-server');

const KEY = 'sk-limited-continuation-1';
let redis: RedisServer;
let h: Harness;
beforeAll(async () => {
  redis = await startRedisServer();
  h = await startHarness({
    apiKey: KEY,
    config: () => ({
      auth: { keys: [{ name: 'limited', key: KEY, limits: { rpm: 2, concurrency: 4 } }] },
      state: { backend: 'redis', url: redis.url, key_prefix: 'limited-continuation:' },
    }),
  });
  h.upstream.setDefault(echoMarkers);
});
afterAll(async () => {
  await h?.close();
  await redis?.stop();
});

describe('a limited key continues a stored conversation on Redis', () => {
  it('admitted: the stored turns reach the upstream; refused: the refusal, whatever the id', async () => {
    const model = MODELS.messages.alias;
    const first = await responsesTurn(h.url, { model, input: `${marker('lc', 1)} go` }, { apiKey: KEY });
    expect(first.status, first.text).toBe(200);
    const second = await responsesTurn(h.url, { model, input: `${marker('lc', 2)} go`, previous_response_id: first.id }, { apiKey: KEY });
    expect(second.status, second.text).toBe(200);
    expect(second.text).toBe(`(ok ${marker('lc', 2)})`);
    const upstream = h.upstream.received.filter((r) => r.method === 'POST' && JSON.stringify(r.body).includes(marker('lc', 2)));
    expect(upstream).toHaveLength(1);
    expect(JSON.stringify(upstream[0]!.body)).toContain(`(ok ${marker('lc', 1)})`);
    // rpm 2 is used up: an unknown id and a known one are both refused at admission, as 429.
    for (const previous of ['resp_unknown_to_everyone', second.id]) {
      const refused = await responsesTurn(h.url, { model, input: `${marker('lc', 3)} go`, previous_response_id: previous }, { apiKey: KEY });
      expect(refused.status).toBe(429);
      expect(JSON.parse(refused.text).error).toMatchObject({ type: 'requests', code: 'rate_limit_exceeded' });
    }
    expect(h.upstream.received.filter((r) => JSON.stringify(r.body).includes(marker('lc', 3)))).toHaveLength(0);
  }, 30_000);
});
