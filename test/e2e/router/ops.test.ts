// Liveness and readiness endpoints.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/gateway-harness.js';

describe('ops endpoints', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  it('GET /livez and its older name /healthz are always ok', async () => {
    for (const path of ['/livez', '/healthz']) {
      const res = await fetch(h.url + path);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.json()).toEqual({ status: 'ok' });
    }
  });

  it('GET /readyz follows readiness (503 while starting or draining)', async () => {
    let res = await fetch(h.url + '/readyz');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ready', state: { backend: 'memory', reachable: true } });
    h.gateway.setReady(false);
    try {
      res = await fetch(h.url + '/readyz');
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ status: 'starting' });
      // Liveness does not depend on readiness.
      expect((await fetch(h.url + '/healthz')).status).toBe(200);
    } finally {
      h.gateway.setReady(true);
    }
    expect((await fetch(h.url + '/readyz')).status).toBe(200);
    // Draining (SIGTERM): not ready, still alive, still serving.
    h.gateway.ctx.draining = true;
    try {
      res = await fetch(h.url + '/readyz');
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ status: 'draining' });
      expect((await fetch(h.url + '/livez')).status).toBe(200);
    } finally {
      h.gateway.ctx.draining = false;
    }
  });

  it('needs no credentials even when the gateway has keys', async () => {
    h.gateway.reload({ ...h.gateway.ctx.config, authKeys: [{ name: 't', key: 'secret-key-123' }] });
    expect((await fetch(h.url + '/healthz')).status).toBe(200);
    expect((await fetch(h.url + '/livez')).status).toBe(200);
    expect((await fetch(h.url + '/readyz')).status).toBe(200);
  });
});
