// The deployment's AWS credentials as the standard chain provides them: a wrong secret is refused by
// Bedrock (its 403), mapped to the deployment's failure (not the caller's), opens its circuit and falls
// back to the next target; short-lived credentials from a credential_process are refreshed before they
// expire, in the background and once, while traffic keeps flowing without a failed request.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setAwsEnv, startBedrockHarness, type BedrockHarness } from '../../support/bedrock/gateway.js';
import type { IssuedCredential } from '../../support/bedrock/sigv4-verify.js';

const MODEL = 'us.anthropic.claude-opus-4-1-20250805-v1:0';

describe('a wrong AWS secret', () => {
  let h: BedrockHarness;
  let restoreEnv: () => void;

  beforeAll(async () => {
    restoreEnv = setAwsEnv({ AWS_ACCESS_KEY_ID: 'AKIAWRONGSECRET00001', AWS_SECRET_ACCESS_KEY: 'this-is-not-the-secret-bedrock-issued' });
    h = await startBedrockHarness({
      model: MODEL,
      bedrock: { credentials: { AKIAWRONGSECRET00001: { secretAccessKey: 'the-secret-bedrock-issued' } } },
      provider: { cooldown: { failures: 1, window_ms: 10_000, cooldown_ms: 60_000, max_cooldown_ms: 60_000 } },
      config: () => ({
        models: {
          claude: { targets: [{ provider: 'up-messages', model: MODEL }, { provider: 'anthropic-direct', model: 'claude-direct-1' }] },
          'bedrock-only': { provider: 'up-messages', model: MODEL },
        },
      }),
    });
  });
  afterAll(async () => {
    await h?.close();
    restoreEnv?.();
  });

  it("is Bedrock's 403, the deployment's circuit opens, and the request falls back to Anthropic's API", async () => {
    h.firstParty.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'from the fallback' }] });
    const msg = await h.anthropic.messages.create({ model: 'claude', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] });
    expect(msg.content[0]).toMatchObject({ text: 'from the fallback' });
    expect(msg.model).toBe('claude');
    expect(h.upstream.refused).toEqual([{ path: `/model/${encodeURIComponent(MODEL)}/invoke`, type: 'InvalidSignatureException' }]);
    expect(h.upstream.received).toHaveLength(0);
    expect(h.firstParty.received.at(-1)!.body.model).toBe('claude-direct-1');
    expect(h.gateway.ctx.health.state(`up-messages/${MODEL}`)).toBe('open');

    // While open, Bedrock is skipped: straight to the fallback, nothing more refused.
    h.firstParty.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'again' }] });
    const again = await h.openai.responses.create({ model: 'claude', input: 'Hi', store: false });
    expect(again.output_text).toBe('again');
    expect(h.upstream.refused).toHaveLength(1);
  });

  it('with no other target: a 502 that blames the deployment and names no secret', async () => {
    const err = (await h.anthropic.messages.create({ model: 'bedrock-only', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e)) as {
      status: number;
      error: { error: { type: string; message: string } };
    };
    expect(err.status).toBe(502);
    expect(err.error.error.message).toMatch(/Bedrock refused the gateway's AWS credentials/);
    expect(JSON.stringify(err.error)).not.toMatch(/this-is-not-the-secret|AKIAWRONGSECRET/);
  });
});

describe('no AWS credentials at all', () => {
  let h: BedrockHarness;
  let restoreEnv: () => void;

  beforeAll(async () => {
    restoreEnv = setAwsEnv({}); // nothing in the environment, empty config files, no instance metadata
    h = await startBedrockHarness({
      model: MODEL,
      provider: { cooldown: { failures: 1, window_ms: 10_000, cooldown_ms: 60_000, max_cooldown_ms: 60_000 } },
      config: () => ({ models: { claude: { targets: [{ provider: 'up-messages', model: MODEL }, { provider: 'anthropic-direct', model: 'claude-direct-1' }] } } }),
    });
  });
  afterAll(async () => {
    await h?.close();
    restoreEnv?.();
  });

  it("is the deployment's authentication failure: a 502 with a body, the circuit opens, the next target answers", async () => {
    const err = (await h.anthropic.messages.create({ model: 'via-messages', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e)) as {
      status: number;
      error: { error: { type: string; message: string } };
    };
    expect(err.status).toBe(502);
    expect(err.error.error.message).toMatch(/could not authenticate to bedrock/);
    expect(h.upstream.received).toHaveLength(0);
    expect(h.upstream.refused).toHaveLength(0); // nothing unsigned was sent
    expect(h.gateway.ctx.health.state(`up-messages/${MODEL}`)).toBe('open');

    h.firstParty.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'fell back' }] });
    const msg = await h.anthropic.messages.create({ model: 'claude', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] });
    expect(msg.content[0]).toMatchObject({ text: 'fell back' });
  });
});

describe('short-lived credentials from a credential_process', () => {
  let h: BedrockHarness;
  let restoreEnv: () => void;
  let dir: string;
  const LIFETIME_MS = 6000;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'switchyard-bedrock-creds-'));
    // Each run issues new temporary credentials (as STS would) and leaves them where the fake Bedrock
    // looks them up; a counter file records how often the chain ran it.
    const script = join(dir, 'issue-credentials.cjs');
    writeFileSync(
      script,
      `const fs = require('fs'), path = require('path');
const dir = process.argv[2], life = Number(process.argv[3]);
const counter = path.join(dir, 'runs');
let n = 0; try { n = Number(fs.readFileSync(counter, 'utf8')); } catch {}
n++; fs.writeFileSync(counter, String(n)); fs.appendFileSync(path.join(dir, 'runs.log'), Date.now() + '\\n');
const id = 'ASIAPROCESS' + String(n).padStart(9, '0'), expiresAt = Date.now() + life;
const cred = { secretAccessKey: 'process-secret-' + n, sessionToken: 'process-token-' + n, expiresAt };
fs.writeFileSync(path.join(dir, id + '.json'), JSON.stringify(cred));
process.stdout.write(JSON.stringify({ Version: 1, AccessKeyId: id, SecretAccessKey: cred.secretAccessKey, SessionToken: cred.sessionToken, Expiration: new Date(expiresAt).toISOString() }));
`,
    );
    chmodSync(script, 0o755);
    const configFile = join(dir, 'config');
    writeFileSync(configFile, `[profile bedrock-test]\ncredential_process = ${process.execPath} ${script} ${dir} ${LIFETIME_MS}\n`);
    restoreEnv = setAwsEnv({ AWS_PROFILE: 'bedrock-test' });
    process.env.AWS_CONFIG_FILE = configFile;
    const lookup = (id: string): IssuedCredential | undefined => {
      try {
        return JSON.parse(readFileSync(join(dir, id + '.json'), 'utf8')) as IssuedCredential;
      } catch {
        return undefined;
      }
    };
    h = await startBedrockHarness({ model: MODEL, bedrock: { lookup } });
  });
  afterAll(async () => {
    await h?.close();
    restoreEnv?.();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('are refreshed before they expire, once each, while requests keep succeeding', async () => {
    const runs = () => Number(readFileSync(join(dir, 'runs'), 'utf8'));
    h.upstream.setDefault(() => ({ kind: 'reply', blocks: [{ type: 'text', text: 'ok' }] }));
    const started = Date.now();
    let ok = 0;
    const failures: unknown[] = [];
    // Three callers until a second past the first credentials' expiry (however long their fetch took on
    // a loaded machine): they are replaced halfway through their life.
    const issued = (id: string) => {
      try {
        return JSON.parse(readFileSync(join(dir, id + '.json'), 'utf8')) as IssuedCredential;
      } catch {
        return undefined;
      }
    };
    const until = () => Math.min(started + 20_000, (issued('ASIAPROCESS000000001')?.expiresAt ?? started + LIFETIME_MS) + 1000);
    const caller = async (i: number) => {
      while (Date.now() < until()) {
        try {
          const stream = (ok + i) % 2 === 0;
          const msg = stream
            ? await h.anthropic.messages.stream({ model: 'via-messages', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] }).finalMessage()
            : await h.anthropic.messages.create({ model: 'via-messages', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] });
          if (msg.content[0]?.type === 'text') ok++;
        } catch (err) {
          failures.push(err);
        }
        await new Promise((r) => setTimeout(r, 40));
      }
    };
    await Promise.all([0, 1, 2].map(caller));
    expect(failures).toEqual([]);
    expect(ok).toBeGreaterThan(10);
    expect(h.upstream.refused).toEqual([]);
    // One refresh per credentials' life, never two at once: runs of the process are about half a life
    // apart (the last one may have started just as the traffic stopped, its credentials not used yet).
    const keys = [...new Set(h.upstream.received.map((r) => r.accessKeyId!))];
    expect(keys.length).toBeGreaterThanOrEqual(2);
    expect(runs() - keys.length).toBeGreaterThanOrEqual(0);
    expect(runs() - keys.length).toBeLessThanOrEqual(1);
    const times = readFileSync(join(dir, 'runs.log'), 'utf8').trim().split('\n').map(Number);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThan(LIFETIME_MS * 0.4);
    expect(keys.slice(0, 2)).toEqual(['ASIAPROCESS000000001', 'ASIAPROCESS000000002']);
    // The second credentials were in use before the first expired: refreshed ahead, not after a refusal.
    const firstExpiry = issued('ASIAPROCESS000000001')!.expiresAt!;
    const firstUseOfSecond = h.upstream.received.find((r) => r.accessKeyId === keys[1])!.at;
    expect(firstUseOfSecond).toBeLessThan(firstExpiry);
    expect(Math.max(...h.upstream.received.map((r) => r.at))).toBeGreaterThan(firstExpiry);
    // Every request carried the session token of the credentials that signed it.
    for (const r of h.upstream.received) expect(r.headers['x-amz-security-token']).toBe(`process-token-${Number(r.accessKeyId!.slice(-9))}`);
  }, 30_000);
});
