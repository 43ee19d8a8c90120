// `--name value`, `--name=value` and bare `--flag` (= "true"), for the bench's small command lines.
export function parseFlags(argv: string[]): Map<string, string> {
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('--')) continue;
    const eq = a.indexOf('=');
    if (eq !== -1) flags.set(a.slice(2, eq), a.slice(eq + 1));
    else if (i + 1 < argv.length && !argv[i + 1]!.startsWith('--')) flags.set(a.slice(2), argv[++i]!);
    else flags.set(a.slice(2), 'true');
  }
  return flags;
}
