// `switchyard keys …` and `switchyard teams …`: the admin API (docs/runtime-keys.md) from a shell or a
// CI job. The admin key comes from SWITCHYARD_ADMIN_KEY (never an argument: it would sit in the shell
// history and the process list), the gateway from --url or SWITCHYARD_URL. Lists print a table, or
// JSON with --json; create and rotate print the new secret once.
export const KEYS_USAGE = [
  'usage: switchyard keys create NAME [policy flags]       issue a key (prints the secret once)',
  '       switchyard keys list | show NAME',
  '       switchyard keys update NAME [policy flags] [--disable | --enable]',
  '       switchyard keys rotate NAME [--grace-s N]         a new secret; the old one works N more seconds (default 0)',
  '       switchyard keys revoke NAME',
  '       switchyard teams create|list|show|update NAME …   the same for teams; teams delete NAME',
  'policy flags: --team T --models a,b* --rpm N --tpm N --concurrency N --budget-usd X --budget-period day|week|month|total',
  '              --expires-at 2027-01-31T00:00:00Z --metadata \'{"owner":"ci"}\'  (update: --clear FIELD to remove one)',
  'every command: --url URL (or SWITCHYARD_URL; default http://127.0.0.1:8080) --json; the admin key in SWITCHYARD_ADMIN_KEY',
].join('\n');

type Resource = 'keys' | 'teams';

interface Io {
  out(s: string): void;
  err(s: string): void;
  env: Record<string, string | undefined>;
  fetch?: typeof fetch;
}

class CliUsage extends Error {}

const VALUE_FLAGS = new Set(['url', 'team', 'models', 'rpm', 'tpm', 'concurrency', 'budget-usd', 'budget-period', 'expires-at', 'metadata', 'grace-s', 'clear']);
const BOOL_FLAGS = new Set(['json', 'disable', 'enable']);
const ACTIONS: Record<Resource, readonly string[]> = {
  keys: ['create', 'list', 'show', 'update', 'rotate', 'revoke'],
  teams: ['create', 'list', 'show', 'update', 'delete', 'revoke'],
};

interface Parsed {
  action: string;
  name: string | undefined;
  flags: Map<string, string[]>;
}

function parse(resource: Resource, argv: readonly string[]): Parsed {
  const action = argv[0];
  if (action === undefined || !ACTIONS[resource].includes(action)) throw new CliUsage(`${resource}: say one of ${ACTIONS[resource].join(', ')}`);
  const flags = new Map<string, string[]>();
  const positional: string[] = [];
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('--')) {
      positional.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const flag = a.slice(2, eq === -1 ? undefined : eq);
    if (BOOL_FLAGS.has(flag)) {
      flags.set(flag, ['true']);
      continue;
    }
    if (!VALUE_FLAGS.has(flag)) throw new CliUsage(`unknown option --${flag}`);
    const value = eq !== -1 ? a.slice(eq + 1) : argv[++i];
    if (value === undefined || value === '') throw new CliUsage(`--${flag} needs a value`);
    flags.set(flag, [...(flags.get(flag) ?? []), value]);
  }
  const needsName = action !== 'list';
  if (needsName && positional.length !== 1) throw new CliUsage(`${resource} ${action} takes one NAME`);
  if (!needsName && positional.length > 0) throw new CliUsage(`${resource} list takes no NAME`);
  return { action, name: positional[0], flags };
}

function one(flags: Map<string, string[]>, name: string): string | undefined {
  const v = flags.get(name);
  if (v && v.length > 1) throw new CliUsage(`--${name} given twice`);
  return v?.[0];
}

function integer(flags: Map<string, string[]>, name: string): number | undefined {
  const v = one(flags, name);
  if (v === undefined) return undefined;
  if (!/^-?\d+$/.test(v)) throw new CliUsage(`--${name}: a whole number`);
  return Number(v);
}

/** The request body the policy flags say (the API checks the values and names the field). */
function policyBody(p: Parsed, resource: Resource, update: boolean): Record<string, unknown> {
  const f = p.flags;
  const body: Record<string, unknown> = {};
  if (resource === 'keys' && one(f, 'team') !== undefined) body.team = one(f, 'team');
  if (resource === 'teams' && f.has('team')) throw new CliUsage('--team is for keys');
  const models = one(f, 'models');
  if (models !== undefined) body.models = models.split(',').map((m) => m.trim()).filter((m) => m !== '');
  const limits: Record<string, number> = {};
  for (const l of ['rpm', 'tpm', 'concurrency']) {
    const n = integer(f, l);
    if (n !== undefined) limits[l] = n;
  }
  if (Object.keys(limits).length > 0) body.limits = limits;
  const usd = one(f, 'budget-usd');
  const period = one(f, 'budget-period');
  if (usd !== undefined || period !== undefined) {
    if (usd === undefined) throw new CliUsage('--budget-period needs --budget-usd');
    body.budget = { usd: Number(usd), period: period ?? 'month' };
  }
  const expires = one(f, 'expires-at');
  if (expires !== undefined) {
    if (resource === 'teams') throw new CliUsage('--expires-at is for keys');
    body.expires_at = expires;
  }
  const metadata = one(f, 'metadata');
  if (metadata !== undefined) {
    try {
      body.metadata = JSON.parse(metadata);
    } catch {
      throw new CliUsage('--metadata: a JSON object, e.g. \'{"owner":"ci"}\'');
    }
  }
  if (update) {
    if (f.has('disable') && f.has('enable')) throw new CliUsage('--disable or --enable, not both');
    if (f.has('disable')) body.disabled = true;
    if (f.has('enable')) body.disabled = false;
    for (const field of f.get('clear') ?? []) body[field] = null;
  } else if (f.has('disable') || f.has('enable') || f.has('clear')) {
    throw new CliUsage('--disable, --enable and --clear are for update');
  }
  return body;
}

/** Exit code: 0 done; 1 the gateway refused (its message printed); 2 a usage mistake. */
export async function keysCommand(resource: Resource, argv: readonly string[], io: Io): Promise<number> {
  let p: Parsed;
  let method: string;
  let path: string;
  let body: Record<string, unknown> | undefined;
  try {
    p = parse(resource, argv);
    const base = `/admin/${resource}`;
    const named = p.name === undefined ? base : `${base}/${encodeURIComponent(p.name)}`;
    switch (p.action) {
      case 'create':
        [method, path, body] = ['POST', base, { name: p.name, ...policyBody(p, resource, false) }];
        break;
      case 'list':
        [method, path] = ['GET', base];
        break;
      case 'show':
        [method, path] = ['GET', named];
        break;
      case 'update':
        [method, path, body] = ['PATCH', named, policyBody(p, resource, true)];
        break;
      case 'rotate': {
        const grace = integer(p.flags, 'grace-s');
        [method, path, body] = ['POST', named + '/rotate', grace === undefined ? {} : { grace_s: grace }];
        break;
      }
      default: // revoke, delete
        [method, path] = ['DELETE', named];
    }
  } catch (e) {
    if (!(e instanceof CliUsage)) throw e;
    io.err(`switchyard: ${e.message}\n${KEYS_USAGE}\n`);
    return 2;
  }
  const adminKey = io.env.SWITCHYARD_ADMIN_KEY;
  if (adminKey === undefined || adminKey === '') {
    io.err('switchyard: set SWITCHYARD_ADMIN_KEY to a key from auth.admin_keys\n');
    return 2;
  }
  const url = (one(p.flags, 'url') ?? io.env.SWITCHYARD_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
  let res: Response;
  try {
    res = await (io.fetch ?? fetch)(url + path, {
      method,
      headers: { authorization: `Bearer ${adminKey}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (e) {
    io.err(`switchyard: cannot reach ${url}: ${(e as Error).message}\n`);
    return 1;
  }
  const text = await res.text();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let parsed: any;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!res.ok) {
    const message = parsed?.error?.message ?? text.slice(0, 300);
    io.err(`switchyard: ${res.status} ${message}\n`);
    return 1;
  }
  const json = p.flags.has('json');
  if (res.status === 204) {
    if (json) io.out(JSON.stringify({ name: p.name, [resource === 'keys' ? 'revoked' : 'deleted']: true }) + '\n');
    else io.out(`${resource === 'keys' ? 'revoked key' : 'deleted team'} ${p.name}\n`);
    return 0;
  }
  if (json) {
    io.out(JSON.stringify(parsed, null, 2) + '\n');
    return 0;
  }
  if (p.action === 'list') io.out(table(resource, parsed.data));
  else io.out(table(resource, [parsed]));
  if (typeof parsed?.key === 'string') {
    io.out(`\nsecret (shown once; store it now):\n${parsed.key}\n`);
  }
  return 0;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function table(resource: Resource, rows: any[]): string {
  const limits = (l: Record<string, number> | undefined) => (l ? Object.entries(l).map(([k, v]) => `${k}=${v}`).join(' ') : '-');
  const budget = (b: { usd: number; period: string } | undefined) => (b ? `$${b.usd}/${b.period}` : '-');
  const head = resource === 'keys' ? ['NAME', 'PREFIX', 'TEAM', 'MODELS', 'LIMITS', 'BUDGET', 'EXPIRES', 'STATE'] : ['NAME', 'MODELS', 'LIMITS', 'BUDGET', 'STATE'];
  const cells = rows.map((r) =>
    resource === 'keys'
      ? [r.name, r.prefix, r.team ?? '-', r.models?.join(',') ?? 'all', limits(r.limits), budget(r.budget), r.expires_at ?? '-', r.disabled ? 'disabled' : 'active']
      : [r.name, r.models?.join(',') ?? 'all', limits(r.limits), budget(r.budget), r.disabled ? 'disabled' : 'active'],
  );
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => String(c[i]).length)));
  const line = (c: string[]) => c.map((x, i) => String(x).padEnd(widths[i]!)).join('  ').trimEnd() + '\n';
  return line(head) + cells.map(line).join('');
}
