// A throw-away world for one client run: fresh HOME, working directory, TMPDIR and XDG dirs under one temp root,
// and an environment built from scratch (nothing of this machine's HOME, keys or proxies leaks in).
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Sandbox {
  root: string;
  home: string;
  /** The agent's working directory (where its shell command writes the proof file). */
  work: string;
  tmp: string;
  /** Base environment: loopback-only proxies, fresh HOME/XDG/TMPDIR. Clients add their own variables. */
  env: NodeJS.ProcessEnv;
  cleanup(): Promise<void>;
}

export interface SandboxOptions {
  /** Forward proxy that every non-loopback request is sent to (the egress trap). */
  egressProxyUrl?: string;
}

const LOOPBACK = '127.0.0.1,localhost,::1';

export async function makeSandbox(label: string, opts: SandboxOptions = {}): Promise<Sandbox> {
  const root = await mkdtemp(join(tmpdir(), `switchyard-${label}-`));
  const home = join(root, 'home');
  const work = join(root, 'work');
  const tmp = join(root, 'tmp');
  const xdg = { XDG_CONFIG_HOME: join(home, '.config'), XDG_CACHE_HOME: join(home, '.cache'), XDG_DATA_HOME: join(home, '.local/share'), XDG_STATE_HOME: join(home, '.local/state') };
  for (const dir of [home, work, tmp, ...Object.values(xdg)]) await mkdir(dir, { recursive: true });

  const proxy = opts.egressProxyUrl;
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: home,
    USER: 'switchyard',
    LOGNAME: 'switchyard',
    SHELL: '/bin/bash',
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    TERM: 'dumb',
    NO_COLOR: '1',
    TMPDIR: tmp,
    ...xdg,
    NO_PROXY: LOOPBACK,
    no_proxy: LOOPBACK,
    ...(proxy ? { HTTPS_PROXY: proxy, https_proxy: proxy, HTTP_PROXY: proxy, http_proxy: proxy, ALL_PROXY: proxy, all_proxy: proxy } : {}),
  };
  return {
    root,
    home,
    work,
    tmp,
    env,
    cleanup: () => rm(root, { recursive: true, force: true, maxRetries: 3 }),
  };
}
