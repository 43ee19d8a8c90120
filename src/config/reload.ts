// Hot reload of the configuration file: on SIGHUP or when the file changes, load and validate the new
// file, and only if it is valid hand it over (BuiltApp.reload swaps the model table atomically; requests
// in flight finish on the table they started with). A bad file is refused and the running one stays,
// and so is a valid one that would open a closed gateway (`auth.open: true` needs a restart): a reload
// is how keys get rotated, and a slip there must not hand the gateway to anyone.
//
// The file's directory is watched rather than the file: editors and config managers replace files by
// rename (and Kubernetes swaps a symlinked directory), which silently ends a watch on the old inode.
// Events are debounced, and a reload triggered by the watcher is skipped when the text is unchanged.
import { readFileSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { ConfigError, loadConfig } from './load-config.js';
import type { GatewayConfig } from './types.js';

export type ReloadOutcome =
  | { status: 'applied'; config: GatewayConfig }
  | { status: 'unchanged' }
  | { status: 'refused'; error: string };

export interface ReloadLogger {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface ConfigReloaderOptions {
  /** The YAML file; undefined = the embedded default (SIGHUP still re-reads the environment). */
  file: string | undefined;
  env: Record<string, string | undefined>;
  /** As LoadOptions.defaultStateBackend (the same as at start-up). */
  defaultStateBackend?: 'memory' | 'file';
  /** Installs a validated configuration (BuiltApp.reload). */
  apply(config: GatewayConfig): void;
  logger: ReloadLogger;
  /** Quiet time after the last file event before reloading (editors write in several steps). */
  debounceMs?: number;
  /** The text the running configuration was loaded from (so an untouched file is not reloaded). */
  initialText?: string;
  /** Told every outcome but "unchanged" (the status page's last reload). */
  onOutcome?: (outcome: ReloadOutcome, why: string) => void;
  /** The configuration running now: a reload that would open it (it has keys, the new one is open) is refused. */
  running?: GatewayConfig;
}

export interface ConfigReloader {
  /** Load, validate and apply now. `force` reloads even when the file's text is unchanged. */
  reload(why: string, force?: boolean): ReloadOutcome;
  /** Start watching the file (no-op without a file). */
  watch(): void;
  close(): void;
}

export function createConfigReloader(options: ConfigReloaderOptions): ConfigReloader {
  const { file, env, apply, logger } = options;
  const debounceMs = options.debounceMs ?? 200;
  let lastText = options.initialText ?? (file ? readQuietly(file) : undefined);
  let running = options.running;
  let watcher: FSWatcher | undefined;
  let pending: NodeJS.Timeout | undefined;

  const reload = (why: string, force = false): ReloadOutcome => {
    let text: string | undefined;
    if (file) {
      text = readQuietly(file);
      if (!force && text !== undefined && text === lastText) return { status: 'unchanged' };
    }
    let next: GatewayConfig;
    try {
      next = loadConfig({ file, env, defaultStateBackend: options.defaultStateBackend });
      if (running !== undefined && !running.auth.open && next.auth.open) {
        throw new ConfigError('auth.open: true would open a gateway that requires keys; a reload may not do that (restart to open it)');
      }
      apply(next);
      running = next;
    } catch (err) {
      const error = err instanceof ConfigError || err instanceof Error ? err.message : String(err);
      logger.error({ why, error }, 'configuration reload refused; keeping the current one');
      return { status: 'refused', error };
    }
    lastText = text;
    logger.info({ config: next.source, why, models: next.models.map((m) => m.name) }, 'configuration reloaded');
    return { status: 'applied', config: next };
  };

  // Every outcome goes through here to the onOutcome hook, whoever asked for the reload.
  const reported = (why: string, force = false): ReloadOutcome => {
    const outcome = reload(why, force);
    if (outcome.status !== 'unchanged') options.onOutcome?.(outcome, why);
    return outcome;
  };

  return {
    reload: reported,
    watch() {
      if (!file || watcher) return;
      const dir = dirname(resolve(file));
      const name = basename(file);
      watcher = watch(dir, (_event, changed) => {
        // Unrelated files in the directory are ignored; a symlink swap (changed !== name) or an unknown
        // name (some platforms give none) is checked against the file's text by reload().
        if (changed && changed !== name && !changed.startsWith('..')) return;
        if (pending) clearTimeout(pending);
        pending = setTimeout(() => {
          pending = undefined;
          reported('file changed');
        }, debounceMs);
      });
      watcher.unref();
    },
    close() {
      if (pending) clearTimeout(pending);
      pending = undefined;
      watcher?.close();
      watcher = undefined;
    },
  };
}

function readQuietly(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
