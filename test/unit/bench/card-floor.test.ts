// CARD-FLOOR, the bench's control for the pass-through stream targets: it must map the alias the way the
// gateway does and hand back the upstream's answer whole, or the control measures a broken path.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { startCardFloorProxy, type CardFloorProxy } from '../../../bench/card-floor-proxy.js';
import { startFakeUpstream, type FakeUpstream } from '../../../bench/fake-upstream.js';
import { gatewayConfig } from '../../../bench/lib/gateway-config.js';
import { gatewayModel, UPSTREAM_MODEL } from '../../../bench/lib/lanes.js';
import { ENDPOINT, requestBody, requestHeaders } from '../../../bench/request-bodies.js';
import { STREAM_TERMINAL } from '../../../bench/upstream-replies.js';

const EVENTS = 7;
let upstream: FakeUpstream;
let proxy: CardFloorProxy;

beforeAll(async () => {
  upstream = await startFakeUpstream({ events: EVENTS });
  // The gateway's own bench config, as ab-gateway.ts hands it to either build.
  proxy = await startCardFloorProxy(gatewayConfig({ port: 0, metrics: true, upstream: upstream.url, pacedUpstream: upstream.url, connections: 4 }) as never);
});

afterAll(async () => {
  await proxy?.close();
  await upstream?.close();
});

async function post(door: 'messages' | 'responses', stream: boolean, model: string) {
  const res = await request(proxy.url + ENDPOINT[door], { method: 'POST', headers: requestHeaders(door), body: requestBody(door, model, stream) });
  return { status: res.statusCode, type: res.headers['content-type'], text: await res.body.text() };
}

describe('CARD-FLOOR', () => {
  for (const door of ['messages', 'responses'] as const) {
    it(`${door}: a non-streamed answer comes back whole, for the upstream model the alias names`, async () => {
      const res = await post(door, false, gatewayModel(door, false));
      expect(res.status).toBe(200);
      expect(JSON.parse(res.text).model).toBe(UPSTREAM_MODEL[door]);
    });

    it(`${door}: a stream comes back as the upstream's ${EVENTS} events, terminal event included`, async () => {
      const res = await post(door, true, gatewayModel(door, false));
      expect(res.status).toBe(200);
      expect(res.type).toBe('text/event-stream');
      // The same events the upstream sends a direct caller (the fake's event count is the deltas' count).
      const path = door === 'messages' ? '/v1/messages' : '/v1/responses';
      const direct = await request(upstream.url + path, { method: 'POST', headers: requestHeaders(door), body: requestBody(door, UPSTREAM_MODEL[door], true) });
      const eventNames = (text: string) => text.split('\n').filter((l) => l.startsWith('event: '));
      expect(eventNames(res.text)).toEqual(eventNames(await direct.body.text()));
      expect(eventNames(res.text).length).toBeGreaterThanOrEqual(EVENTS);
      expect(res.text).toContain(STREAM_TERMINAL[door]);
      expect(res.text).toContain(UPSTREAM_MODEL[door]);
    });
  }

  it('refuses a model that is not a pass-through alias of that door', async () => {
    const res = await post('messages', false, gatewayModel('chat', false));
    expect(res.status).toBe(404);
  });
});
