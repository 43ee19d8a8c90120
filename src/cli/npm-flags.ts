// `npm start --config x.yaml` (without `--`) hands the flag to npm, not to the gateway: npm keeps it as
// its own setting (`npm_config_config` in the script's environment) and passes only the bare path on.
// Served as is, that was the embedded demo config while the operator believed their file ran.

/** The gateway's flags npm may have swallowed, found in the environment npm gives a script. */
const SWALLOWED = ['config', 'workers'] as const;

/**
 * A one-line error when a flag meant for the gateway went to npm; undefined otherwise. `argv` is what
 * npm passed on: `--config x.yaml` leaves `npm_config_config=true` and the bare `x.yaml` there.
 */
export function swallowedByNpm(env: Record<string, string | undefined>, argv: readonly string[]): string | undefined {
  const flag = SWALLOWED.find((f) => env[`npm_config_${f}`] !== undefined && env[`npm_config_${f}`] !== '');
  if (flag === undefined) return undefined;
  const script = env.npm_lifecycle_event || 'start';
  const value = env[`npm_config_${flag}`];
  const bare = argv.find((a) => !a.startsWith('-'));
  const shown = value && value !== 'true' ? value : (bare ?? (flag === 'config' ? 'FILE' : 'N'));
  return `--${flag} went to npm, not to switchyard (npm ${script} --${flag} …); put -- before the gateway's flags: npm ${script === 'start' ? 'start' : `run ${script}`} -- --${flag} ${shown}`;
}
