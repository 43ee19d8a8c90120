// A real three-node Redis Cluster (Debian's redis-server and redis-cli) for tests: masters only, on
// free loopback ports with their bus ports, each in its own temp dir, no persistence; created with
// `redis-cli --cluster create … --cluster-yes` and stopped by pid.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireTool } from './required-tools.js';

export interface RedisCluster {
  ports: number[];
  /** redis+cluster://127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3 */
  url: string;
  /** Runs redis-cli against one node (`-c`: follows redirections). */
  cli(port: number, ...args: string[]): Promise<string>;
  /** SIGKILL to node `i` (by its pid), as a crash. */
  kill(i: number): Promise<void>;
  /** Starts node `i` again on its ports and dir (its nodes.conf keeps its slots). */
  restart(i: number): Promise<void>;
  /** Waits until every node reports cluster_state:ok. */
  ready(ms?: number): Promise<void>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

function run(cmd: string, args: string[], timeoutMs = 15_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { timeout: timeoutMs }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${cmd} ${args.join(' ')}: ${err.message}\n${stdout}${stderr}`));
      else resolve(stdout);
    });
  });
}

function startNode(port: number, busPort: number, dir: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const proc = spawn(
      requireTool('redis-server'),
      [
        '--port', String(port), '--cluster-port', String(busPort), '--bind', '127.0.0.1', '--dir', dir,
        '--cluster-enabled', 'yes', '--cluster-config-file', join(dir, 'nodes.conf'), '--cluster-node-timeout', '2000',
        '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--loglevel', 'notice',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`redis-server (cluster node) did not start within 10 s on port ${port}: ${out.slice(-500)}`));
    }, 10_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      if (/Ready to accept connections/i.test(out)) {
        clearTimeout(timer);
        proc.stdout?.off('data', onData);
        proc.stdout?.resume();
        proc.stderr?.resume();
        resolve(proc);
      }
    };
    proc.stdout?.on('data', onData);
    proc.stderr?.on('data', (c: Buffer) => (out += c.toString()));
    proc.once('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`cannot run redis-server: ${err.message}`));
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}: ${out.slice(-500)}`));
    });
  });
}

async function stopNode(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    proc.once('exit', () => resolve());
    proc.kill('SIGKILL');
  });
}

export async function startRedisCluster(nodes = 3): Promise<RedisCluster> {
  const dirs: string[] = [];
  const procs: ChildProcess[] = [];
  const ports: number[] = [];
  const busPorts: number[] = [];
  const stop = async () => {
    await Promise.all(procs.map(stopNode));
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < nodes; i++) {
      const dir = mkdtempSync(join(tmpdir(), 'switchyard-redis-cluster-'));
      dirs.push(dir);
      const port = await freePort();
      const busPort = await freePort();
      procs.push(await startNode(port, busPort, dir));
      ports.push(port);
      busPorts.push(busPort);
    }
    await run(requireTool('redis-cli'), ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes'], 30_000);
    await clusterOk(ports);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    ports,
    url: `redis+cluster://${ports.map((p) => `127.0.0.1:${p}`).join(',')}`,
    cli: (port, ...args) => run(requireTool('redis-cli'), ['-c', '-p', String(port), ...args]),
    kill: (i) => stopNode(procs[i]!),
    async restart(i) {
      procs[i] = await startNode(ports[i]!, busPorts[i]!, dirs[i]!);
    },
    ready: (ms = 30_000) => clusterOk(ports, ms),
    stop,
  };
}

/** Every node in `ports` sees all slots covered (cluster_state:ok) before the cluster takes commands everywhere. */
async function clusterOk(ports: number[], ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (const port of ports) {
    for (;;) {
      const info = await run(requireTool('redis-cli'), ['-p', String(port), 'cluster', 'info']).catch((e: Error) => e.message);
      if (/cluster_state:ok/.test(info)) break;
      if (Date.now() > deadline) throw new Error(`cluster not ok on ${port}: ${info}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
