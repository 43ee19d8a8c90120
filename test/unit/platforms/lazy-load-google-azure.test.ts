// The cloud SDKs are heavy and optional: a gateway configured with Vertex and Azure providers loads
// neither google-auth-library nor @azure/identity at start-up, only on a provider's first token. Checked
// in a fresh process (both are CommonJS: once imported they sit in the CommonJS module cache).
import { execFileSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

const SCRIPT = `
import { createRequire } from 'node:module';
import { buildApp } from './src/app.ts';
import { resolveConfig } from './src/config/load-config.ts';
import { platformRequest } from './src/platforms/send.ts';
import { TokenCache } from './src/platforms/token-cache.ts';
const require = createRequire(import.meta.url);
const loaded = () => Object.keys(require.cache).filter((k) => /node_modules\\/(google-auth-library|@azure\\/identity)\\//.test(k)).map((k) => k.includes('google-auth') ? 'google' : 'azure');
const config = resolveConfig({
  log: { level: 'silent' },
  auth: { open: true },
  providers: {
    v: { protocol: 'messages', platform: 'vertex', region: 'us-east5', project: 'p' },
    a: { protocol: 'chat', platform: 'azure', base_url: 'https://r.openai.azure.com/openai/v1', auth: 'entra' },
  },
  models: { claude: { provider: 'v', model: 'claude-x' }, gpt: { provider: 'a', model: 'gpt-x' } },
}, 'test');
const app = buildApp(config);
await app.app.ready();
const atStart = new Set(loaded());
// The first token: the SDK is imported (the token itself fails here: no credentials, no network).
process.env.METADATA_SERVER_DETECTION = 'none';
await platformRequest(config.providers.get('v'), { path: '/v1/messages', headers: {}, body: '{"model":"m"}' }, 'claude-x', false, 'generate').catch(() => undefined);
const afterVertex = new Set(loaded());
await app.app.close();
console.log(JSON.stringify({ atStart: [...atStart], afterVertex: [...afterVertex] }));
`;

describe('cloud SDKs load lazily', () => {
  it('neither google-auth-library nor @azure/identity at start-up; google-auth-library on the first Vertex token', () => {
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SCRIPT], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, GOOGLE_APPLICATION_CREDENTIALS: '', CLOUDSDK_CONFIG: resolve(ROOT, 'test/fixtures/no-such-dir') },
    });
    const result = JSON.parse(out.trim().split('\n').pop()!) as { atStart: string[]; afterVertex: string[] };
    expect(result.atStart).toEqual([]);
    expect(result.afterVertex).toEqual(['google']);
  });
});
