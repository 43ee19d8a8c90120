// ${VAR} and ${VAR:-default} in string values (not in keys), applied after YAML parsing so a value
// can never change the document's structure. A missing variable without a default becomes "", and is
// recorded by where it was used: a provider's credential from an unset variable is a config error
// (load-config.ts), never a request sent without one. `$VAR` without braces is not replaced; written
// where a variable was plainly meant, it is an error rather than a literal key.

const PATTERN = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;
/** `$NAME` with no braces: upper case, at least 3 characters, not glued to other word characters. */
const BARE = /(^|[^A-Za-z0-9_$])\$([A-Z_][A-Z0-9_]{2,})(?![A-Za-z0-9_{])/;

export function interpolateString(value: string, env: Record<string, string | undefined>, unset?: (name: string) => void): string {
  return value.replace(PATTERN, (_m, name: string, fallback: string | undefined) => {
    const v = env[name];
    if (v !== undefined && v !== '') return v;
    if (fallback === undefined) unset?.(name);
    return fallback ?? '';
  });
}

export interface Interpolated {
  value: unknown;
  /** Dotted key (`providers.anthropic.api_key`) → the variables it named that are unset or empty (no default). */
  unset: Map<string, string[]>;
  /** `$VAR` written without braces, one message per value. */
  problems: string[];
}

export function interpolateDocument(template: unknown, env: Record<string, string | undefined>): Interpolated {
  const unset = new Map<string, string[]>();
  const problems: string[] = [];
  const walk = (value: unknown, path: string[]): unknown => {
    if (typeof value === 'string') {
      const key = path.join('.');
      const bare = BARE.exec(value.replace(PATTERN, ''));
      // The name is a variable's, not the value's text: `${…}` is what the file should say.
      if (bare) problems.push(`${key}: $${bare[2]} is not replaced (only \${…} is); write \${${bare[2]}}`);
      return interpolateString(value, env, (name) => unset.set(key, [...(unset.get(key) ?? []), name]));
    }
    if (Array.isArray(value)) return value.map((v, i) => walk(v, [...path, String(i)]));
    if (value && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[k] = walk(v, [...path, k]);
      return out;
    }
    return value;
  };
  return { value: walk(template, []), unset, problems };
}

export function interpolate(value: unknown, env: Record<string, string | undefined>): unknown {
  return interpolateDocument(value, env).value;
}
