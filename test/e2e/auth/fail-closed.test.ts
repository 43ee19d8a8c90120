// Fail closed (issue 19, item 1), on the real process as `npm start` runs it: an `auth.keys` entry
// whose `${VAR}` is unset stops the start-up with the entry and the variable named (it used to drop
// the entry and, with no entry left, open the gateway to everyone); a hot reload that rotates a key to
// a variable the process does not have, or that sets `auth.open: true`, is refused at error level and
// the running keys keep serving — a request without a key still gets 401.
import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { startGatewayProcess, waitForOutput, type GatewayProcess } from '../../support/gateway-process.js';

const ALICE = 'sk-sy-alice-fail-closed-0123456789';

const config = (key: string | null) => ({
  auth: key === null ? { open: true } : { keys: [{ name: 'alice', key }] },
  providers: { demo: { protocol: 'demo' } },
  models: { demo: { provider: 'demo' } },
});

async function ask(url: string, key?: string): Promise<number> {
  const res = await fetch(url + '/v1/messages', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) },
    body: JSON.stringify({ model: 'demo', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
  });
  await res.arrayBuffer();
  return res.status;
}

let gw: GatewayProcess | undefined;
afterEach(async () => {
  await gw?.stop();
  gw = undefined;
});

describe('fail closed: keys behind unset variables', () => {
  it('refuses to start when a key variable is unset, naming the entry and the variable', async () => {
    gw = await startGatewayProcess(config('${SY_TEST_UNSET_ALICE_KEY}'), { wait: false });
    const code = await Promise.race([gw.exited, new Promise((r) => setTimeout(() => r('still running'), 20_000))]);
    expect(code, gw.output()).toBe(2);
    expect(gw.output()).toContain('auth.keys.0 (alice): key is empty — is ${SY_TEST_UNSET_ALICE_KEY} set?');
  }, 30_000);

  it('refuses a reload that rotates to an unset variable or opens the gateway; the running keys keep serving', async () => {
    gw = await startGatewayProcess(config('${SY_TEST_ALICE_KEY}'), { env: { SY_TEST_ALICE_KEY: ALICE } });
    expect(await ask(gw.url)).toBe(401);
    expect(await ask(gw.url, ALICE)).toBe(200);

    writeFileSync(gw.configFile, JSON.stringify({ ...config('${SY_TEST_ALICE_KEY_V2}'), server: { host: '127.0.0.1', port: gw.port } }));
    process.kill(gw.pid, 'SIGHUP');
    const out = await waitForOutput(gw, 'is ${SY_TEST_ALICE_KEY_V2} set?');
    const line = out.split('\n').find((l) => l.includes('SY_TEST_ALICE_KEY_V2'))!;
    expect(JSON.parse(line)).toMatchObject({ level: 50, msg: 'configuration reload refused; keeping the current one' });
    expect(await ask(gw.url)).toBe(401);
    expect(await ask(gw.url, ALICE)).toBe(200);

    writeFileSync(gw.configFile, JSON.stringify({ ...config(null), server: { host: '127.0.0.1', port: gw.port } }));
    process.kill(gw.pid, 'SIGHUP');
    await waitForOutput(gw, 'would open a gateway that requires keys');
    expect(await ask(gw.url)).toBe(401);
    expect(await ask(gw.url, ALICE)).toBe(200);
  }, 40_000);
});
