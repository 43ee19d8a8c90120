// The AWS packages are loaded only when a Bedrock provider first signs a request: a gateway built with
// Bedrock configured (and one without) has not loaded them. Checked in a fresh Node process, where the
// CommonJS module cache shows exactly what was loaded.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const SCRIPT = `
import { createRequire } from 'node:module';
import pino from 'pino';
const require = createRequire(import.meta.url);
const loaded = () => Object.keys(require.cache).filter((p) => /@aws-sdk[\\\\/]credential-providers|@smithy[\\\\/](signature-v4|eventstream-codec|hash-node)/.test(p)).length;
process.env.AWS_ACCESS_KEY_ID = 'AKIALAZY'; process.env.AWS_SECRET_ACCESS_KEY = 'lazy';
process.env.AWS_EC2_METADATA_DISABLED = 'true';
const { buildApp } = await import('./src/app.ts');
const { resolveConfig } = await import('./src/config/load-config.ts');
const { platformOf } = await import('./src/platforms/registry.ts');
const config = resolveConfig({ log: { level: 'silent' }, auth: { open: true }, providers: { b: { protocol: 'messages', platform: 'bedrock', region: 'us-east-1' } }, models: { m: { provider: 'b', model: 'anthropic.x' } } }, 'lazy');
const app = buildApp(config, { logger: pino({ level: 'silent' }) });
const before = loaded();
const platform = platformOf(config.providers.get('b'));
const beforeSigning = loaded();
await platform.prepare({ path: '/v1/messages', headers: {}, body: '{"model":"x","max_tokens":1,"messages":[]}', model: 'anthropic.x', stream: true, operation: 'generate' });
console.log(JSON.stringify({ before, beforeSigning, after: loaded() }));
await app.app.close();
`;

describe('cloud SDKs are loaded lazily', () => {
  it('nothing of AWS until a Bedrock request is prepared', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SCRIPT], { cwd: process.cwd(), encoding: 'utf8', timeout: 60_000 });
    expect(run.status, run.stderr).toBe(0);
    const counts = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { before: number; beforeSigning: number; after: number };
    expect(counts.before).toBe(0);
    expect(counts.beforeSigning).toBe(0);
    expect(counts.after).toBeGreaterThan(0);
  });
});
