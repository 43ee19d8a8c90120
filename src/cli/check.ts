// `switchyard check --config FILE`: load and validate exactly as `serve` would (the same loader, the same
// environment), report every problem, bind no port, connect to nothing. For CI and for a change about
// to be rolled out: exit 0 when the file would load, 2 when it would not.
import { ConfigError, loadConfig } from '../config/load-config.js';

export function checkCommand(file: string | undefined, env: Record<string, string | undefined>, io: { out(s: string): void; err(s: string): void }): number {
  try {
    const config = loadConfig({ file, env });
    const keys = config.authKeys.length;
    const summary = [
      `providers: ${[...config.providers.keys()].join(', ')}`,
      `models: ${config.models.length}`,
      config.auth.open ? 'open (no keys)' : `keys: ${keys}${config.auth.adminKeys.length ? `, admin keys: ${config.auth.adminKeys.length}` : ''}`,
      `listening on ${config.server.host}:${config.server.port}`,
    ].join('; ');
    io.out(`OK ${config.source} (${summary})\n`);
    return 0;
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    const problems = err.problems;
    io.err(`${file ?? 'embedded default'}: ${problems.length === 1 ? '1 problem' : `${problems.length} problems`}\n${problems.map((p) => `  ${p}\n`).join('')}`);
    return 2;
  }
}
