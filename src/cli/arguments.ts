// The command line: `switchyard [serve] [--config FILE] [--workers N]`, `switchyard check --config FILE`,
// `switchyard hash-key [KEY]`, `switchyard help`. Anything else is a usage error (exit 2): an argument
// the gateway ignored once served the demo config to someone who had asked for their own.

export type Command =
  | { name: 'serve'; config?: string; workers?: string }
  | { name: 'check'; config?: string }
  | { name: 'hash-key'; key?: string }
  /** `keys …`, `teams …`: parsed by cli/keys.ts. */
  | { name: 'keys' | 'teams'; argv: string[] }
  | { name: 'help' };

export class UsageError extends Error {}

export const USAGE = [
  'usage: switchyard [serve] [--config FILE] [--workers N]   serve (SWITCHYARD_CONFIG, SWITCHYARD_WORKERS, SWITCHYARD_HOST, SWITCHYARD_PORT)',
  '       switchyard check [--config FILE]                    load and validate the config, report every problem, bind nothing (exit 0 or 2)',
  '       switchyard hash-key [KEY]                           print the key_sha256 of a key read from stdin (or KEY)',
  '       switchyard keys|teams create|list|show|update|rotate|revoke …   runtime keys through the admin API (switchyard keys --help)',
  '       switchyard help',
].join('\n');

/** Which flags each command takes (a flag of another command is an error, not ignored). */
const FLAGS: Record<'serve' | 'check' | 'hash-key', readonly string[]> = {
  serve: ['config', 'workers'],
  check: ['config'],
  'hash-key': [],
};
const SHORT: Record<string, string> = { '-c': 'config', '-w': 'workers' };

export function parseArguments(argv: readonly string[]): Command {
  let name: 'serve' | 'check' | 'hash-key' = 'serve';
  let rest = argv;
  const first = argv[0];
  if (first === 'help' || first === '--help' || first === '-h') return { name: 'help' };
  if (first === 'keys' || first === 'teams') return { name: first, argv: argv.slice(1) };
  if (first === 'serve' || first === 'check' || first === 'hash-key') {
    name = first;
    rest = argv.slice(1);
  }
  const flags: Record<string, string> = {};
  const positional: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    if (a === '--help' || a === '-h') return { name: 'help' };
    if (a === '--') {
      positional.push(...rest.slice(i + 1));
      break;
    }
    if (!a.startsWith('-') || a === '-') {
      positional.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const flag = a.startsWith('--') ? a.slice(2, eq === -1 ? undefined : eq) : SHORT[a];
    if (flag === undefined || !FLAGS[name].includes(flag)) throw new UsageError(`unknown option ${quote(a.slice(0, eq === -1 ? undefined : eq))}${name === 'serve' ? '' : ` for ${name}`}`);
    let value: string | undefined;
    if (eq !== -1) value = a.slice(eq + 1);
    else {
      value = rest[i + 1];
      if (value === undefined || value.startsWith('-')) throw new UsageError(`${a} needs a value`);
      i++;
    }
    if (value === '') throw new UsageError(`--${flag} needs a value`);
    if (flags[flag] !== undefined) throw new UsageError(`--${flag} given twice`);
    flags[flag] = value;
  }
  if (name === 'hash-key') {
    if (positional.length > 1) throw new UsageError('hash-key takes one key at most (better: none, and the key on stdin)');
    return { name, key: positional[0] };
  }
  if (positional.length > 0) throw new UsageError(`unexpected argument ${quote(positional[0]!)}`);
  return name === 'check' ? { name, config: flags.config } : { name, config: flags.config, workers: flags.workers };
}

/** An argument as the error shows it: quoted, and cut short (it may be something pasted by mistake). */
function quote(a: string): string {
  return JSON.stringify(a.length > 60 ? `${a.slice(0, 60)}…` : a);
}
