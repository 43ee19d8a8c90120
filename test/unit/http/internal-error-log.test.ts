// A failure inside a route that nothing anticipated (a bug, or an install missing a file) is answered
// 500 `internal gateway error` in the door's envelope, with nothing of the cause for the caller; the
// operator hears of it, cause included. Errors the caller made are not reported as internal.
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { frameworkErrorOptions, installFrameworkErrorHandling } from '../../../src/http/framework-errors.js';

function appWith(heard: { err: unknown; path: string }[]) {
  const app = Fastify({ logger: false, ...frameworkErrorOptions });
  installFrameworkErrorHandling(app, (err, request) => heard.push({ err, path: request.url }));
  app.get('/status', async () => {
    const missing = new Error("ENOENT: no such file or directory, open '/app/dist/status/page/status.html'");
    throw missing;
  });
  app.post('/v1/messages', async () => ({ ok: true }));
  return app;
}

describe('internal errors', () => {
  it('are answered 500 without their cause, and reported with it', async () => {
    const heard: { err: unknown; path: string }[] = [];
    const app = appWith(heard);
    const res = await app.inject({ method: 'GET', url: '/status' });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toMatchObject({ type: 'error', error: { type: 'api_error', message: 'internal gateway error' } });
    expect(res.body).not.toContain('ENOENT');
    expect(heard).toHaveLength(1);
    expect(heard[0]!.path).toBe('/status');
    expect((heard[0]!.err as Error).message).toMatch(/ENOENT.*status\.html/);
    await app.close();
  });

  it('leave the caller\'s own mistakes unreported (bad JSON is a 400)', async () => {
    const heard: { err: unknown; path: string }[] = [];
    const app = appWith(heard);
    const res = await app.inject({ method: 'POST', url: '/v1/messages', headers: { 'content-type': 'application/json' }, payload: '{"model":' });
    expect(res.statusCode).toBe(400);
    expect(heard).toEqual([]);
    await app.close();
  });
});
