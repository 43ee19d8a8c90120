// The command line as an operator meets it: the real entry (src/main.ts, as `npm start` runs it, through
// tsx) as a child process, and `npm start` itself for the flag npm swallows. Every mistake is made on
// purpose and its one-line answer asserted; the good paths are checked by what they do (a digest the
// gateway accepts, a check that binds nothing, a listening line that says where the port came from).
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, startGatewayProcess, waitForOutput } from '../support/gateway-process.js';

const REPO = join(import.meta.dirname, '../..');
const ENTRY = join(REPO, 'src/main.ts');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `switchyard ARGS` with `input` on stdin; bounded, and stopped by its own pid if it outlives the bound. */
function cli(args: string[], options: { env?: Record<string, string>; input?: string; cwd?: string; ms?: number } = {}): Promise<Run> {
  return new Promise((resolve) => {
    const env = { ...cleanEnv(), ...options.env };
    const child = spawn(process.execPath, ['--import', 'tsx', ENTRY, ...args], { cwd: options.cwd ?? REPO, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.ms ?? 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

/** This process's environment without what npm put there (vitest may run under `npm test`). */
function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('npm_') && !k.startsWith('SWITCHYARD_')) env[k] = v;
  return env;
}

function writeFile(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'switchyard-cli-')), 'switchyard.yaml');
  writeFileSync(file, text);
  return file;
}

/** The lines of an error answer: the error first, then the usage. */
const firstLine = (s: string) => s.split('\n')[0];

const servers: Server[] = [];
afterAll(async () => {
  for (const s of servers) await new Promise((r) => s.close(r));
});

function holdPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    servers.push(s);
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => resolve((s.address() as { port: number }).port));
  });
}

const DEMO = 'auth: { open: true }\nproviders: { demo: { protocol: demo } }\nmodels: { demo: { provider: demo } }\n';

// Each run starts a process through tsx: seconds apiece on a busy machine.
describe('switchyard command line', { timeout: 90_000 }, () => {
  it('refuses an unknown option or a stray argument with one line and the usage, exit 2', async () => {
    const cases = [
      [['--confg', 'x.yaml'], 'switchyard: unknown option "--confg"'],
      [['x.yaml'], 'switchyard: unexpected argument "x.yaml"'],
      [['serve', '--workers'], 'switchyard: --workers needs a value'],
      [['check', '--workers', '2'], 'switchyard: unknown option "--workers" for check'],
      [['hash-key', 'a', 'b'], 'switchyard: hash-key takes one key at most (better: none, and the key on stdin)'],
    ] as const;
    const runs = await Promise.all(cases.map(([args]) => cli([...args])));
    for (const [i, [args, line]] of cases.entries()) {
      const r = runs[i]!;
      expect(r.code, args.join(' ')).toBe(2);
      expect(firstLine(r.stderr)).toBe(line);
      expect(r.stderr).toContain('usage: switchyard [serve] [--config FILE] [--workers N]');
      // Nothing was served: no listening line.
      expect(r.stdout).toBe('');
    }
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('switchyard check [--config FILE]');
  });

  it('`npm start --config x.yaml` (no --) is refused with the command to use, never served with the demo config', async () => {
    // A package folder whose dist/main.js is this source entry, so `npm start` runs exactly what it
    // would run after a build (--ignore-scripts skips the prestart build, not the start script).
    const pkg = mkdtempSync(join(tmpdir(), 'switchyard-npm-'));
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'x', private: true, type: 'module', scripts: { start: 'node dist/main.js' } }));
    mkdirSync(join(pkg, 'dist'));
    writeFileSync(join(pkg, 'dist/main.js'), `import ${JSON.stringify(pathToFileURL(ENTRY).href)};\n`);
    const file = writeFile(DEMO);
    const env = { ...cleanEnv(), NODE_OPTIONS: `--import=${import.meta.resolve('tsx')}`, npm_config_update_notifier: 'false' };
    const npm = (args: string[]) =>
      new Promise<Run>((resolve) =>
        execFile('npm', ['start', '--ignore-scripts', ...args], { cwd: pkg, env, timeout: 30_000 }, (error, stdout, stderr) =>
          resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        ),
      );
    for (const args of [['--config', file], [`--config=${file}`]]) {
      const r = await npm(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain(`switchyard: --config went to npm, not to switchyard (npm start --config …); put -- before the gateway's flags: npm start -- --config ${file}`);
      expect(r.stdout).not.toContain('listening');
    }
    // With the --, the file is the one served (and checked, to keep the test from binding a port).
    const ok = await npm(['--', 'check', '--config', file]);
    expect(ok.stdout).toContain(`OK ${file} (providers: demo; models: 1; open (no keys)`);
    expect(ok.code).toBe(0);
  });

  it('check: OK for a file that loads, without binding its port or reaching its state store', async () => {
    const port = await holdPort();
    const redisPort = await freePort();
    const file = writeFile(`server: { port: ${port} }\nstate: { backend: redis, url: "redis://127.0.0.1:${redisPort}" }\nauth: { keys: [ { name: a, key: "\${A_KEY}" } ] }\nproviders: { demo: { protocol: demo } }\nmodels: { demo: { provider: demo } }\n`);
    const r = await cli(['check', '--config', file], { env: { A_KEY: 'k'.repeat(40) } });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`OK ${file} (providers: demo; models: 1; keys: 1; listening on 127.0.0.1:${port})\n`);
    expect(r.code).toBe(0);
    // SWITCHYARD_CONFIG names the file too, as for serve.
    const byEnv = await cli(['check'], { env: { A_KEY: 'k'.repeat(40), SWITCHYARD_CONFIG: file } });
    expect(byEnv.code).toBe(0);
  });

  it('check: a file that would not load is exit 2 with its problems, one a line', async () => {
    const file = writeFile(DEMO.replace('auth: { open: true }\n', ''));
    const r = await cli(['check', '--config', file]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: 1 problem\n  auth: no keys configured; add auth.keys`));
    // Several mistakes at once, as a newcomer makes them: all reported, none echoing its value.
    const many = writeFile(
      'auth: { keys: [ { name: a, kee: sk-secret-0123456789abcdef } ] }\nproviders:\n  anthropic: { protocol: messages, base_url: "https://api.anthropic.com", api_key: "${ANTHROPIC_API_KEY}" }\n  openai: { protocol: openai }\nmodels: { m: { provider: anthropic } }\n',
    );
    const r2 = await cli(['check', '--config', many]);
    expect(r2.code).toBe(2);
    expect(r2.stderr).toBe(
      `${many}: 2 problems\n  auth.keys.0.kee: unknown key; did you mean key?\n  providers.openai.protocol: must be one of messages, responses, chat, gemini, demo (got text)\n`,
    );
    // With the shape fixed, the unset provider key is named with its provider and variable.
    writeFileSync(many, 'auth: { keys: [ { name: a, key: k-0123456789abcdef } ] }\nproviders:\n  anthropic: { protocol: messages, base_url: "https://api.anthropic.com", api_key: "${ANTHROPIC_API_KEY}" }\nmodels: { m: { provider: anthropic } }\n');
    const r3 = await cli(['check', '--config', many]);
    expect(r3.code).toBe(2);
    expect(r3.stderr).toContain('  providers.anthropic.api_key: ${ANTHROPIC_API_KEY} is not set, so provider anthropic would send no credential;');
    expect((await cli(['check', '--config', many], { env: { ANTHROPIC_API_KEY: 'sk-ant-test' } })).code).toBe(0);
    const missing = await cli(['check', '--config', join(tmpdir(), 'no-such-switchyard.yaml')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('cannot read config file');
  });

  it('hash-key: the digest of the key from stdin (one trailing newline dropped) or an argument, which the gateway accepts', async () => {
    const key = 'sk-team-' + 'ab12'.repeat(8);
    const want = createHash('sha256').update(key).digest('hex');
    const inputs = [key, `${key}\n`, `${key}\r\n`];
    const [piped, argument, empty, spaced] = await Promise.all([
      Promise.all(inputs.map((input) => cli(['hash-key'], { input }))),
      cli(['hash-key', key]),
      cli(['hash-key'], { input: '\n' }),
      cli(['hash-key'], { input: ` ${key}` }),
    ]);
    piped.forEach((r, i) => {
      expect(r.stdout, JSON.stringify(inputs[i])).toBe(`${want}\n`);
      expect(r.code).toBe(0);
    });
    expect(argument.stdout).toBe(`${want}\n`);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('the key is empty');
    expect(spaced.code).toBe(2);

    // The printed digest, as key_sha256, lets the key in (and only it).
    const gw = await startGatewayProcess({ auth: { keys: [{ name: 'team', key_sha256: want }] }, providers: { demo: { protocol: 'demo' } }, models: { demo: { provider: 'demo' } } }, { env: cleanEnv() });
    try {
      const models = (k: string) => fetch(`${gw.url}/v1/models`, { headers: { 'x-api-key': k } }).then((r) => r.status);
      expect(await models(key)).toBe(200);
      expect(await models(key + 'x')).toBe(401);
    } finally {
      await gw.stop();
    }
  });

  it('a port in use is one line (EADDRINUSE, host:port, what to do), exit 3, no stack trace', async () => {
    const port = await holdPort();
    const gw = await startGatewayProcess({ providers: { demo: { protocol: 'demo' } }, models: { demo: { provider: 'demo' } } }, { port, wait: false, env: cleanEnv() });
    const code = await gw.exited;
    expect(code).toBe(3);
    const out = gw.output();
    expect(out).toContain(
      `switchyard: server: cannot listen on 127.0.0.1:${port}: the address is already in use (EADDRINUSE); stop the process using it, or choose another port (server.port in the config, or SWITCHYARD_PORT)\n`,
    );
    expect(out).not.toMatch(/^\s+at /m);
    expect(out).not.toContain('node:net');
  });

  it('serve: SWITCHYARD_PORT still wins over the file, and the listening line says so', async () => {
    const port = await freePort();
    const file = writeFile(`server: { port: 1 }\n${DEMO}`);
    const child = spawn(process.execPath, ['--import', 'tsx', ENTRY, 'serve', '--config', file], { cwd: REPO, env: { ...cleanEnv(), SWITCHYARD_PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const exited = new Promise((r) => child.once('exit', r));
    try {
      await waitForOutput({ output: () => out } as Parameters<typeof waitForOutput>[0], 'switchyard listening', 20_000);
      expect(out).toContain(`switchyard listening on http://127.0.0.1:${port} (host from default, port from SWITCHYARD_PORT (over server.port: 1))`);
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });
});
