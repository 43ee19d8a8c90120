// Qwen Code (`qwen`, headless) pointed at the gateway, fully offline: a fresh ~/.qwen/settings.json with usage
// statistics, telemetry and auto-update off, and the gateway as its OpenAI-compatible (Chat Completions, its
// default), OpenAI Responses or Anthropic endpoint.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runBounded, type BoundedRun } from './bounded-process.js';
import type { ClientBinary } from './claude-code.js';
import { nodeCliBinary } from './node-cli.js';
import type { Sandbox } from './sandbox.js';

export const qwenCodeBinary = (): ClientBinary => nodeCliBinary('@qwen-code/qwen-code', 'qwen');

/** Qwen Code's --auth-type per front door it can speak. */
export type QwenMode = 'openai' | 'openai-responses' | 'anthropic';

export interface QwenCodeRunOptions {
  sandbox: Sandbox;
  /** Gateway root, e.g. http://127.0.0.1:1234. */
  baseUrl: string;
  apiKey: string;
  model: string;
  prompt: string;
  timeoutMs: number;
  mode?: QwenMode;
}

export function qwenSettings(mode: QwenMode): Record<string, unknown> {
  return {
    privacy: { usageStatisticsEnabled: false },
    general: { enableAutoUpdate: false },
    telemetry: { enabled: false },
    // Its default (non-interactive) shell runner returns empty output for quick commands.
    tools: { shell: { enableInteractiveShell: true } },
    // For a model it does not know it asks for a thinking budget equal to max_tokens, which Messages refuses.
    ...(mode === 'anthropic' ? { model: { generationConfig: { reasoning: { budget_tokens: 2048 } } } } : {}),
  };
}

export interface QwenCodeResult {
  run: BoundedRun;
  /** `--output-format stream-json` events, one per stdout line that parsed. */
  events: Array<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export async function runQwenCode(binary: string, opts: QwenCodeRunOptions): Promise<QwenCodeResult> {
  const mode = opts.mode ?? 'openai';
  const dir = join(opts.sandbox.home, '.qwen');
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'settings.json'), JSON.stringify(qwenSettings(mode), null, 2));
  const env: NodeJS.ProcessEnv = {
    ...opts.sandbox.env,
    QWEN_CODE_SUPPRESS_YOLO_WARNING: '1',
    ...(mode === 'anthropic'
      ? { ANTHROPIC_API_KEY: opts.apiKey, ANTHROPIC_BASE_URL: opts.baseUrl, ANTHROPIC_MODEL: opts.model }
      : { OPENAI_API_KEY: opts.apiKey, OPENAI_BASE_URL: `${opts.baseUrl}/v1`, OPENAI_MODEL: opts.model }),
  };
  const args = ['--auth-type', mode, '-m', opts.model, '--output-format', 'stream-json', '--approval-mode', 'yolo', opts.prompt];
  const run = await runBounded(binary, args, { cwd: opts.sandbox.work, env, timeoutMs: opts.timeoutMs });
  return { run, events: jsonLines(run.stdout) };
}

export function jsonLines(stdout: string): Array<Record<string, any>> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const events: Array<Record<string, unknown>> = [];
  for (const line of stdout.split('\n')) {
    const t = line.trim();
    if (!t.startsWith('{')) continue;
    try {
      events.push(JSON.parse(t) as Record<string, unknown>);
    } catch {
      /* not an event line */
    }
  }
  return events;
}
