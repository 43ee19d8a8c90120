// Claude Code (`claude -p`) pointed at a gateway, fully offline: loopback base URL, a test key, a fresh HOME and
// config dir, every documented telemetry/update/non-essential-traffic switch off.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { runBounded, type BoundedRun } from './bounded-process.js';
import type { Sandbox } from './sandbox.js';

const require = createRequire(import.meta.url);

export interface ClientBinary {
  /** Absolute path of the native executable, when one was found. */
  path?: string;
  version?: string;
  /** Why it cannot run, when it cannot. */
  problem?: string;
}

/** The native Claude Code executable: the wrapper's bin/claude.exe once its postinstall copied the binary in,
 *  else the platform package's binary directly (what the wrapper's own fallback runs). */
export function claudeCodeBinary(): ClientBinary {
  let wrapperDir: string;
  let version: string;
  try {
    const pkgPath = require.resolve('@anthropic-ai/claude-code/package.json');
    wrapperDir = dirname(pkgPath);
    version = (JSON.parse(readFileSync(pkgPath, 'utf8')) as { version: string }).version;
  } catch (err) {
    return { problem: `@anthropic-ai/claude-code is not installed (npm ci?): ${(err as Error).message}` };
  }
  const candidates = [join(wrapperDir, 'bin', 'claude.exe')];
  const arch = process.arch === 'arm64' ? 'arm64' : 'x64';
  for (const flavour of [`${process.platform}-${arch}`, `${process.platform}-${arch}-musl`]) {
    try {
      candidates.push(join(dirname(require.resolve(`@anthropic-ai/claude-code-${flavour}/package.json`)), 'claude'));
    } catch {
      /* not installed for this platform */
    }
  }
  // The wrapper ships a small placeholder until its postinstall runs; the real binary is hundreds of MB.
  const real = candidates.find((p) => existsSync(p) && statSync(p).size > 1_000_000);
  if (!real) return { version, problem: `no native Claude Code binary for ${process.platform}-${process.arch}; looked at ${candidates.join(', ')}` };
  return { path: real, version };
}

export interface ClaudeCodeRunOptions {
  sandbox: Sandbox;
  /** Gateway root, e.g. http://127.0.0.1:1234 (Claude Code appends /v1/messages). */
  baseUrl: string;
  apiKey: string;
  /** Model alias used for the main loop and every side model (small/fast, haiku/sonnet/opus, subagents). */
  model: string;
  prompt: string;
  timeoutMs: number;
}

/** Environment for Claude Code: the sandbox's base plus gateway, model and every "stay offline" switch. */
export function claudeCodeEnv(opts: Omit<ClaudeCodeRunOptions, 'prompt' | 'timeoutMs'>): NodeJS.ProcessEnv {
  const { sandbox, baseUrl, apiKey, model } = opts;
  return {
    ...sandbox.env,
    ANTHROPIC_BASE_URL: baseUrl,
    ANTHROPIC_API_KEY: apiKey,
    ANTHROPIC_MODEL: model,
    ANTHROPIC_SMALL_FAST_MODEL: model, // older name of the haiku-class model
    ANTHROPIC_DEFAULT_HAIKU_MODEL: model,
    ANTHROPIC_DEFAULT_SONNET_MODEL: model,
    ANTHROPIC_DEFAULT_OPUS_MODEL: model,
    CLAUDE_CODE_SUBAGENT_MODEL: model,
    CLAUDE_CONFIG_DIR: join(sandbox.home, '.claude'),
    // Offline: no telemetry, error reports, update checks, feedback surveys or other non-essential traffic.
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_BUG_COMMAND: '1',
    DISABLE_COST_WARNINGS: '1',
    DISABLE_NON_ESSENTIAL_MODEL_CALLS: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY: '1',
    CLAUDE_CODE_DISABLE_TERMINAL_TITLE: '1',
    CLAUDE_CODE_IDE_SKIP_AUTO_INSTALL: '1',
    // Fail fast instead of waiting ten minutes on a broken exchange.
    API_TIMEOUT_MS: '60000',
    CLAUDE_CODE_MAX_RETRIES: '0', // the test is deterministic: a retry would only hide the first failure
    BASH_DEFAULT_TIMEOUT_MS: '30000',
  };
}

export interface ClaudeCodeResult {
  run: BoundedRun;
  /** Parsed `--output-format json` result, if stdout was that JSON. */
  json?: { type?: string; subtype?: string; is_error?: boolean; result?: string; num_turns?: number; [k: string]: unknown };
}

export async function runClaudeCode(binary: string, opts: ClaudeCodeRunOptions): Promise<ClaudeCodeResult> {
  const args = [
    '-p',
    opts.prompt,
    '--output-format',
    'json',
    '--model',
    opts.model,
    // Non-interactive permission for the shell tool only (--dangerously-skip-permissions refuses to run as root).
    '--allowedTools',
    'Bash',
    '--max-turns',
    '4',
    '--no-session-persistence',
    '--strict-mcp-config',
  ];
  const run = await runBounded(binary, args, { cwd: opts.sandbox.work, env: claudeCodeEnv(opts), timeoutMs: opts.timeoutMs });
  let json: ClaudeCodeResult['json'];
  const text = run.stdout.trim();
  const start = text.lastIndexOf('\n{') >= 0 ? text.lastIndexOf('\n{') + 1 : text.indexOf('{');
  if (start >= 0) {
    try {
      json = JSON.parse(text.slice(start)) as ClaudeCodeResult['json'];
    } catch {
      json = undefined;
    }
  }
  return { run, json };
}
