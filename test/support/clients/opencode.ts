// opencode (`opencode run`) with an `@ai-sdk/openai-compatible` provider on the gateway's Chat Completions door,
// fully offline: its config file names the provider, the model and the small model (its title request would
// otherwise name a model of its own), no auto-update, no sharing, no model catalogue download.
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { runBounded, type BoundedRun } from './bounded-process.js';
import type { ClientBinary } from './claude-code.js';
import { nodeCliBinary } from './node-cli.js';
import { jsonLines } from './qwen-code.js';
import type { Sandbox } from './sandbox.js';

const require = createRequire(import.meta.url);

/** The native executable of the platform package (what bin/opencode.exe is a copy of). */
export function opencodeBinary(): ClientBinary {
  const wrapper = nodeCliBinary('opencode-ai', 'opencode');
  if (!wrapper.version) return wrapper;
  const arch = process.arch === 'arm64' ? 'arm64' : 'x64';
  for (const flavour of [`${process.platform}-${arch}`, `${process.platform}-${arch}-baseline`, `${process.platform}-${arch}-musl`]) {
    try {
      const path = join(dirname(require.resolve(`opencode-${flavour}/package.json`)), 'bin', 'opencode');
      if (existsSync(path)) return { path, version: wrapper.version };
    } catch {
      /* not installed for this platform */
    }
  }
  return { version: wrapper.version, problem: `no opencode platform package for ${process.platform}-${process.arch} (installed with --omit=optional?)` };
}

export const OPENCODE_PROVIDER = 'switchyard';

export interface OpencodeRunOptions {
  sandbox: Sandbox;
  /** Gateway root; the provider's baseURL is this + /v1. */
  baseUrl: string;
  apiKey: string;
  model: string;
  prompt: string;
  timeoutMs: number;
}

export function opencodeConfig(baseUrl: string, apiKey: string, model: string): Record<string, unknown> {
  return {
    provider: {
      [OPENCODE_PROVIDER]: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Switchyard',
        options: { baseURL: `${baseUrl}/v1`, apiKey },
        models: { [model]: { name: model } },
      },
    },
    model: `${OPENCODE_PROVIDER}/${model}`,
    small_model: `${OPENCODE_PROVIDER}/${model}`,
    autoupdate: false,
    share: 'disabled',
    permission: { bash: 'allow', edit: 'allow' },
  };
}

export interface OpencodeResult {
  run: BoundedRun;
  /** `--format json` events, one per stdout line that parsed. */
  events: Array<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export async function runOpencode(binary: string, opts: OpencodeRunOptions): Promise<OpencodeResult> {
  const configFile = join(opts.sandbox.root, 'opencode.json');
  await writeFile(configFile, JSON.stringify(opencodeConfig(opts.baseUrl, opts.apiKey, opts.model), null, 2));
  const env: NodeJS.ProcessEnv = {
    ...opts.sandbox.env,
    OPENCODE_CONFIG: configFile,
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    // It runs a background `npm install` of its plugin package at every start; offline that fails harmlessly.
    npm_config_offline: 'true',
  };
  const args = ['run', '--format', 'json', '-m', `${OPENCODE_PROVIDER}/${opts.model}`, opts.prompt];
  const run = await runBounded(binary, args, { cwd: opts.sandbox.work, env, timeoutMs: opts.timeoutMs });
  return { run, events: jsonLines(run.stdout) };
}
