// What Amazon Bedrock costs the gateway per request against Anthropic's own API, on the Messages
// pass-through lane: one gateway process (dist/main.js, default config: log line at info, metrics on)
// with three aliases, `m-messages` on the fake Anthropic upstream, `m-bedrock` on the fake Bedrock (SigV4
// with static credentials from the environment, the event stream decoded by AWS's codec) and
// `m-bedrock-key` on the same with a Bedrock API key (no signature), driven in interleaved bursts.
// Reported: CPU µs per request of each (process CPU time / requests completed, from /proc) and the median
// per-round difference to Anthropic. Target (issue 21): ≤ +25 µs per request.
//
//   npm run build && node --import tsx bench/bedrock-overhead.ts [--rounds 6] [--burst 2] [--warmup 2] [--connections 32] [--quick]
//
// No CPU pinning (run.ts pins): on a shared machine compare within a round, and repeat.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { parseFlags } from './cli-flags.js';
import { saturate } from './lib/load.js';
import { cpuSeconds } from './lib/proc-stats.js';
import { freePort, startService, stopAll, type Service } from './lib/services.js';
import { ENDPOINT, requestBody, requestHeaders } from './request-bodies.js';

const REPO = path.resolve(fileURLToPath(new URL('..', import.meta.url)));
const BEDROCK_MODEL = 'us.anthropic.claude-bench-v1:0';

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

async function main(): Promise<void> {
  const f = parseFlags(process.argv.slice(2));
  const quick = f.has('quick');
  const rounds = Number(f.get('rounds') ?? (quick ? 3 : 6));
  const burstS = Number(f.get('burst') ?? (quick ? 1 : 2));
  const warmS = Number(f.get('warmup') ?? (quick ? 1 : 2));
  const connections = Number(f.get('connections') ?? 32);
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'switchyard-bedrock-bench-'));
  try {
    const anthropic = await startService({ name: 'upstream', cwd: REPO, args: ['--import', 'tsx', path.join(REPO, 'bench', 'fake-upstream.ts'), '--port', '0', '--events', '50', '--pace-ms', '0'] });
    const bedrock = await startService({ name: 'bedrock', cwd: REPO, args: ['--import', 'tsx', path.join(REPO, 'bench', 'fake-bedrock.ts'), '--port', '0', '--events', '50'] });
    const port = await freePort();
    const config = path.join(tmp, 'gateway.yaml');
    writeFileSync(
      config,
      stringify({
        server: { host: '127.0.0.1', port },
        providers: {
          'up-messages': { protocol: 'messages', base_url: anthropic.origin, api_key: 'sk-bench-upstream', connections: 1024, retry: { attempts: 1 } },
          'up-bedrock': { protocol: 'messages', platform: 'bedrock', region: 'us-east-1', base_url: bedrock.origin, connections: 1024, retry: { attempts: 1 } },
          'up-bedrock-key': { protocol: 'messages', platform: 'bedrock', region: 'us-east-1', base_url: bedrock.origin, api_key: 'bench-bedrock-api-key', connections: 1024, retry: { attempts: 1 } },
        },
        models: {
          'm-messages': { provider: 'up-messages', model: 'claude-bench' },
          'm-bedrock': { provider: 'up-bedrock', model: BEDROCK_MODEL },
          'm-bedrock-key': { provider: 'up-bedrock-key', model: BEDROCK_MODEL },
        },
      }),
    );
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'production',
      // Static temporary-style credentials: the signer's per-request work, no refresh.
      AWS_ACCESS_KEY_ID: 'AKIABENCHBEDROCK0001',
      AWS_SECRET_ACCESS_KEY: 'bench-secret-access-key-0000000000000000',
      AWS_SESSION_TOKEN: 'bench-session-token',
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_CONFIG_FILE: os.devNull,
      AWS_SHARED_CREDENTIALS_FILE: os.devNull,
    };
    delete env.SWITCHYARD_CONFIG;
    delete env.AWS_PROFILE;
    const gateway: Service = await startService({ name: 'gateway', cwd: REPO, args: [path.join(REPO, 'dist', 'main.js'), '--config', config], port, stdoutFile: path.join(tmp, 'gateway.log'), env });

    const run = async (model: string, stream: boolean, seconds: number) => {
      const target = { url: gateway.origin + ENDPOINT.messages, headers: requestHeaders('messages'), body: requestBody('messages', model, stream) };
      const c0 = cpuSeconds(gateway.pid);
      const r = await saturate(target, connections, seconds);
      if (r.non2xx || r.errors) throw new Error(`${model}: ${r.non2xx} non-2xx, ${r.errors} errors`);
      return ((cpuSeconds(gateway.pid) - c0) * 1e6) / r.ok;
    };
    const aliases = ['m-messages', 'm-bedrock', 'm-bedrock-key'] as const;
    for (const stream of [false, true]) {
      for (const m of aliases) await run(m, stream, warmS);
      const per: Record<string, number[]> = {};
      const diffs: Record<string, number[]> = {};
      for (let i = 0; i < rounds; i++) {
        const got: Record<string, number> = {};
        for (const m of i % 2 ? [...aliases].reverse() : aliases) got[m] = await run(m, stream, burstS);
        for (const m of aliases) {
          (per[m] ??= []).push(got[m]!);
          (diffs[m] ??= []).push(got[m]! - got['m-messages']!);
        }
        process.stderr.write(`round ${i + 1}${stream ? ' streams' : ''}: ${aliases.map((m) => `${m} ${got[m]!.toFixed(0)} µs`).join('  ')}\n`);
      }
      const signed = (n: number) => `${n >= 0 ? '+' : ''}${n.toFixed(0)}`;
      const range = (xs: number[]) => `${signed(Math.min(...xs))}…${signed(Math.max(...xs))}`;
      process.stdout.write(
        `messages→messages pass-through${stream ? ', streams (50 events)' : ''}: CPU µs per ${stream ? 'stream' : 'request'}: ` +
          `Anthropic ${median(per['m-messages']!).toFixed(0)}; Bedrock SigV4 ${median(per['m-bedrock']!).toFixed(0)} (${signed(median(diffs['m-bedrock']!))}, range ${range(diffs['m-bedrock']!)}); ` +
          `Bedrock API key ${median(per['m-bedrock-key']!).toFixed(0)} (${signed(median(diffs['m-bedrock-key']!))}, range ${range(diffs['m-bedrock-key']!)}); ${rounds} rounds of ${burstS} s, ${connections} connections\n`,
      );
    }
  } finally {
    await stopAll();
    rmSync(tmp, { recursive: true, force: true });
  }
}

void main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
