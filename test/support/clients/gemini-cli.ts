// Gemini CLI (`gemini -p`) pointed at the gateway's Gemini door, fully offline: GOOGLE_GEMINI_BASE_URL on loopback,
// a test key as GEMINI_API_KEY, and a fresh ~/.gemini/settings.json that pins the key mode (a cached Google login
// would win otherwise, and headless mode exits 41 without a selected auth type) and switches off usage
// statistics, telemetry and update checks.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runBounded, type BoundedRun } from './bounded-process.js';
import type { ClientBinary } from './claude-code.js';
import { nodeCliBinary } from './node-cli.js';
import type { Sandbox } from './sandbox.js';

export const geminiCliBinary = (): ClientBinary => nodeCliBinary('@google/gemini-cli', 'gemini');

export interface GeminiCliRunOptions {
  sandbox: Sandbox;
  /** Gateway root, e.g. http://127.0.0.1:1234 (the CLI's SDK appends /v1beta). */
  baseUrl: string;
  apiKey: string;
  model: string;
  prompt: string;
  timeoutMs: number;
}

export const GEMINI_CLI_SETTINGS = {
  security: { auth: { selectedType: 'gemini-api-key' } },
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
  general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
};

export interface GeminiCliResult {
  run: BoundedRun;
  /** `--output-format json`: {response, stats, error?}. */
  json?: { response?: string; error?: { type?: string; message?: string; code?: unknown }; [k: string]: unknown };
}

export async function runGeminiCli(binary: string, opts: GeminiCliRunOptions): Promise<GeminiCliResult> {
  const dir = join(opts.sandbox.home, '.gemini');
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'settings.json'), JSON.stringify(GEMINI_CLI_SETTINGS, null, 2));
  const env: NodeJS.ProcessEnv = {
    ...opts.sandbox.env,
    GOOGLE_GEMINI_BASE_URL: opts.baseUrl,
    GEMINI_API_KEY: opts.apiKey,
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
    // One process we own (no re-launch with a larger heap), no sandbox container.
    GEMINI_CLI_NO_RELAUNCH: 'true',
    GEMINI_SANDBOX: 'false',
  };
  // --yolo: the shell tool runs without a prompt (headless mode has no one to ask).
  const args = ['-p', opts.prompt, '-m', opts.model, '--output-format', 'json', '--yolo'];
  const run = await runBounded(binary, args, { cwd: opts.sandbox.work, env, timeoutMs: opts.timeoutMs });
  let json: GeminiCliResult['json'];
  const text = run.stdout.trim();
  const start = text.indexOf('{');
  if (start >= 0) {
    try {
      json = JSON.parse(text.slice(start)) as GeminiCliResult['json'];
    } catch {
      json = undefined;
    }
  }
  return { run, json };
}
