// Codex CLI (`codex exec`) pointed at a gateway, fully offline: a temporary CODEX_HOME whose config.toml defines a
// custom Responses provider on loopback, with plugin sync, analytics, update checks and other outside traffic off.
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { runBounded, type BoundedRun } from './bounded-process.js';
import type { ClientBinary } from './claude-code.js';
import type { Sandbox } from './sandbox.js';

const require = createRequire(import.meta.url);

const TARGETS: Record<string, { pkg: string; triple: string }> = {
  'linux-x64': { pkg: '@openai/codex-linux-x64', triple: 'x86_64-unknown-linux-musl' },
  'linux-arm64': { pkg: '@openai/codex-linux-arm64', triple: 'aarch64-unknown-linux-musl' },
  'darwin-x64': { pkg: '@openai/codex-darwin-x64', triple: 'x86_64-apple-darwin' },
  'darwin-arm64': { pkg: '@openai/codex-darwin-arm64', triple: 'aarch64-apple-darwin' },
};

/** The native Codex executable shipped in the platform package (what bin/codex.js spawns). Running it directly
 *  keeps the process tree to one child we own, so a timeout kills exactly what we started. */
export function codexBinary(): ClientBinary {
  let version: string;
  try {
    version = (JSON.parse(readFileSync(require.resolve('@openai/codex/package.json'), 'utf8')) as { version: string }).version;
  } catch (err) {
    return { problem: `@openai/codex is not installed (npm ci?): ${(err as Error).message}` };
  }
  const target = TARGETS[`${process.platform}-${process.arch}`];
  if (!target) return { version, problem: `Codex ships no binary for ${process.platform}-${process.arch}` };
  let path: string;
  try {
    path = join(dirname(require.resolve(`${target.pkg}/package.json`)), 'vendor', target.triple, 'bin', 'codex');
  } catch {
    return { version, problem: `optional dependency ${target.pkg} is missing (installed with --omit=optional?)` };
  }
  if (!existsSync(path)) return { version, problem: `${path} does not exist` };
  return { path, version };
}

export interface CodexRunOptions {
  sandbox: Sandbox;
  /** Gateway root, e.g. http://127.0.0.1:1234 (the provider's base_url is this + /v1). */
  baseUrl: string;
  apiKey: string;
  model: string;
  prompt: string;
  timeoutMs: number;
  /** `supports_websockets = true` on the provider: Codex opens a WebSocket to /v1/responses first. */
  websockets?: boolean;
}

/** Name of the environment variable holding the key (the provider's env_key). */
export const CODEX_KEY_ENV = 'SWITCHYARD_API_KEY';

/**
 * config.toml for a custom provider on the gateway. Every key here is accepted by `--strict-config`, which the run
 * uses, so a key a newer Codex renames fails loudly instead of silently switching traffic back on.
 */
export function codexConfigToml(baseUrl: string, model: string, websockets = false): string {
  return `# Written by Switchyard's client tests: Codex against a Switchyard gateway on loopback, nothing else.
model = ${JSON.stringify(model)}
model_provider = "switchyard"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[model_providers.switchyard]
name = "Switchyard"
base_url = ${JSON.stringify(baseUrl + '/v1')}
wire_api = "responses"
env_key = "${CODEX_KEY_ENV}"
${websockets ? '# WebSocket first, with Codex\'s default retries (a refused upgrade shows as "Reconnecting").\nsupports_websockets = true\n' : 'request_max_retries = 0\nstream_max_retries = 0\n'}stream_idle_timeout_ms = 60000

[features]
# Curated plugin sync and app connectors reach github.com / chatgpt.com.
plugins = false
remote_plugin = false
apps = false

[analytics]
enabled = false

[feedback]
enabled = false

[otel]
exporter = "none"
`;
}

export async function writeCodexHome(sandbox: Sandbox, baseUrl: string, model: string, websockets = false): Promise<string> {
  const codexHome = join(sandbox.home, '.codex');
  await mkdir(codexHome, { recursive: true });
  await writeFile(join(codexHome, 'config.toml'), codexConfigToml(baseUrl, model, websockets));
  return codexHome;
}

export function codexEnv(sandbox: Sandbox, codexHome: string, apiKey: string): NodeJS.ProcessEnv {
  return {
    ...sandbox.env,
    CODEX_HOME: codexHome,
    [CODEX_KEY_ENV]: apiKey,
    RUST_LOG: 'warn',
  };
}

export interface CodexResult {
  run: BoundedRun;
  /** `--json` events, one per stdout line that parsed. */
  events: Array<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** Contents of `--output-last-message`, if written. */
  lastMessage?: string;
}

export async function runCodex(binary: string, opts: CodexRunOptions): Promise<CodexResult> {
  const codexHome = await writeCodexHome(opts.sandbox, opts.baseUrl, opts.model, opts.websockets);
  const lastMessageFile = join(opts.sandbox.root, 'codex-last-message.txt');
  const args = [
    'exec',
    '--strict-config',
    '--json',
    '--skip-git-repo-check',
    '--ephemeral',
    '--color',
    'never',
    '-m',
    opts.model,
    '-c',
    'model_provider="switchyard"',
    // The agent's command must run without a prompt and without a sandbox that needs kernel features CI lacks.
    '--dangerously-bypass-approvals-and-sandbox',
    '-C',
    opts.sandbox.work,
    '-o',
    lastMessageFile,
    opts.prompt,
  ];
  const run = await runBounded(binary, args, { cwd: opts.sandbox.work, env: codexEnv(opts.sandbox, codexHome, opts.apiKey), timeoutMs: opts.timeoutMs });
  const events: CodexResult['events'] = [];
  for (const line of run.stdout.split('\n')) {
    const t = line.trim();
    if (!t.startsWith('{')) continue;
    try {
      events.push(JSON.parse(t) as Record<string, unknown>);
    } catch {
      /* not an event line */
    }
  }
  let lastMessage: string | undefined;
  try {
    lastMessage = readFileSync(lastMessageFile, 'utf8');
  } catch {
    lastMessage = undefined;
  }
  return { run, events, lastMessage };
}
