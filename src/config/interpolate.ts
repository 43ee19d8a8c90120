// ${VAR} and ${VAR:-default} in string values (not in keys), applied after YAML parsing so a value
// can never change the document's structure. A missing variable without a default becomes "".

const PATTERN = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export function interpolateString(value: string, env: Record<string, string | undefined>): string {
  return value.replace(PATTERN, (_m, name: string, fallback: string | undefined) => {
    const v = env[name];
    return v !== undefined && v !== '' ? v : (fallback ?? '');
  });
}

export function interpolate(value: unknown, env: Record<string, string | undefined>): unknown {
  if (typeof value === 'string') return interpolateString(value, env);
  if (Array.isArray(value)) return value.map((v) => interpolate(v, env));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = interpolate(v, env);
    return out;
  }
  return value;
}
