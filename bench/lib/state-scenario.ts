// The `state` scenario of bench/run.ts: for each state backend, a gateway process of its own (pinned
// alone on the SUT CPU like the others) serving two-turn conversations (state-conversation.ts) through
// the Responses door into the Messages upstream (translation: the stored turns are spliced). The row
// reports what `previous_response_id` adds over the same follow-up with its history inline.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { gatewayConfig } from './gateway-config.js';
import { gatewayModel } from './lanes.js';
import { CpuMeter } from './proc-stats.js';
import type { QuietGate } from './quiet.js';
import type { Row } from './report.js';
import { freePort, startService } from './services.js';
import { median, summarize } from './stats.js';
import { REFERENCES, twoTurnConversations } from './state-conversation.js';

export const STATE_BACKENDS = ['memory', 'file', 'redis'] as const;
export type StateBackend = (typeof STATE_BACKENDS)[number];

/** The issue's bounds on what the lookup may add at p50 (memory: reported, no bound). */
const TARGET_US: Record<StateBackend, number | null> = { memory: null, file: 50, redis: 150 };

export interface StateRun {
  backend: StateBackend;
  run: number;
  samples: number;
  failures: number;
  firstFailure?: string;
  turn1P50Us: number;
  turn2P50Us: number;
  inlineP50Us: number;
  /** p50(turn 2) − p50(inline): the lookup and splice. */
  addedP50Us: number;
  /** p50 of the follow-up with REFERENCES item_references, and of the same items inline. */
  refsP50Us: number;
  refsInlineP50Us: number;
  sutCpuPct: number;
  foreignCpuPct: number;
}

export interface StateScenarioOptions {
  backends: StateBackend[];
  main: string;
  repo: string;
  tmp: string;
  upstream: string;
  pacedUpstream: string;
  connections: number;
  durationS: number;
  runs: number;
  gate: QuietGate;
  arrange: (sut: number, extra: number[]) => void;
  ourPids: number[];
  log: (msg: string) => void;
  notes: string[];
}

export async function measureStateBackends(o: StateScenarioOptions): Promise<StateRun[]> {
  const out: StateRun[] = [];
  for (const backend of o.backends) {
    let redis: { child: ChildProcess; dir: string; port: number } | undefined;
    const state: Record<string, unknown> = { backend };
    try {
      if (backend === 'redis') {
        redis = await startRedis(o.tmp);
        if (!redis) {
          o.notes.push('state scenario: redis-server not found (apt-get install redis-server): redis backend not measured');
          o.log(o.notes[o.notes.length - 1]!);
          continue;
        }
        Object.assign(state, { url: `redis://127.0.0.1:${redis.port}`, key_prefix: 'bench:' });
      } else if (backend === 'file') {
        state.path = path.join(o.tmp, 'state-file');
      }
      const port = await freePort();
      const file = path.join(o.tmp, `gateway-state-${backend}.yaml`);
      const config = { ...gatewayConfig({ port, metrics: true, upstream: o.upstream, pacedUpstream: o.pacedUpstream, connections: o.connections, logLevel: 'warn' }), state };
      writeFileSync(file, `# written by bench/run.ts (state scenario)\n${stringify(config)}`);
      const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production' };
      delete env.SWITCHYARD_CONFIG;
      const svc = await startService({ name: `gateway-state-${backend}`, cwd: o.repo, args: [o.main, '--config', file], port, healthPath: '/healthz', env, timeoutMs: 20_000 });
      const extra = redis ? [svc.pid, redis.child.pid!] : [svc.pid];
      const model = gatewayModel('messages', false);
      try {
        // Warm-up: JIT, connections, the backend's first writes.
        o.arrange(svc.pid, extra);
        await twoTurnConversations(svc.origin, model, Math.min(1, o.durationS), 200);
        for (let run = 0; run < o.runs; run++) {
          const m = await o.gate.measure(async () => {
            o.arrange(svc.pid, extra);
            const meter = new CpuMeter(svc.pid, [...o.ourPids, ...extra.filter((p) => p !== svc.pid)]);
            const result = await twoTurnConversations(svc.origin, model, o.durationS, 5000);
            return { result, ...meter.stop() };
          });
          const r = m.result;
          const t1 = summarize(r.turn1Us).p50;
          const t2 = summarize(r.turn2Us).p50;
          const inline = summarize(r.inlineUs).p50;
          const entry: StateRun = {
            backend,
            run,
            samples: r.turn2Us.length,
            failures: r.failures,
            ...(r.firstFailure ? { firstFailure: r.firstFailure } : {}),
            turn1P50Us: t1,
            turn2P50Us: t2,
            inlineP50Us: inline,
            addedP50Us: t2 - inline,
            refsP50Us: summarize(r.refsUs).p50,
            refsInlineP50Us: summarize(r.refsInlineUs).p50,
            sutCpuPct: m.sutCpuPct,
            foreignCpuPct: m.foreignCpuPct,
          };
          out.push(entry);
          o.log(
            `state ${backend.padEnd(6)} run ${run + 1}/${o.runs}: turn 1 p50 ${Math.round(t1)} µs, turn 2 (previous_response_id) p50 ${Math.round(t2)} µs, ` +
              `inline p50 ${Math.round(inline)} µs → lookup adds ${Math.round(t2 - inline)} µs; ${REFERENCES} item_references p50 ${Math.round(entry.refsP50Us)} µs, ` +
              `inline ${Math.round(entry.refsInlineP50Us)} µs (${entry.samples} conversations${r.failures ? `, ${r.failures} failures: ${r.firstFailure}` : ''}); other load ${m.foreignCpuPct.toFixed(0)}%`,
          );
        }
      } finally {
        await svc.stop();
      }
    } finally {
      if (redis) {
        redis.child.kill('SIGKILL');
        rmSync(redis.dir, { recursive: true, force: true });
      }
    }
  }
  return out;
}

export function stateRows(runs: StateRun[]): Row[] {
  const rows: Row[] = [];
  for (const backend of STATE_BACKENDS) {
    const mine = runs.filter((r) => r.backend === backend);
    if (mine.length === 0) continue;
    const added = median(mine.map((r) => r.addedP50Us));
    const failures = mine.reduce((n, r) => n + r.failures, 0);
    const target = TARGET_US[backend];
    const us = (n: number) => `${Math.round(n).toLocaleString('en-US')} µs`;
    rows.push({
      scenario: 'two-turn previous_response_id, p50',
      lane: `responses→messages, state ${backend}`,
      direct: '',
      floor: `inline ${us(median(mine.map((r) => r.inlineP50Us)))}`,
      jsonFloor: '',
      gateway: failures ? 'error' : `turn 2 ${us(median(mine.map((r) => r.turn2P50Us)))}`,
      ratio: `lookup ${added >= 0 ? '+' : '−'}${us(Math.abs(added))}`,
      ratioJsonFloor: '',
      cpuFloor: '',
      cpuJsonFloor: '',
      cpuGateway: '',
      cpuRatio: '',
      cpuRatioJsonFloor: '',
      target: target === null ? '(reported)' : `≤${target} µs`,
      result: failures ? 'error' : target === null ? 'info' : added <= target ? 'pass' : 'miss',
      otherLoad: `${median(mine.map((r) => r.foreignCpuPct)).toFixed(0)}%`,
      values: {
        backend,
        turn1P50Us: median(mine.map((r) => r.turn1P50Us)),
        turn2P50Us: median(mine.map((r) => r.turn2P50Us)),
        inlineP50Us: median(mine.map((r) => r.inlineP50Us)),
        addedP50Us: added,
        failures,
      },
    });
    const refs = median(mine.map((r) => r.refsP50Us));
    const refsInline = median(mine.map((r) => r.refsInlineP50Us));
    rows.push({
      scenario: `${REFERENCES} item_references of one conversation, p50`,
      lane: `responses→messages, state ${backend}`,
      direct: '',
      floor: `inline ${us(refsInline)}`,
      jsonFloor: '',
      gateway: failures ? 'error' : `refs ${us(refs)}`,
      ratio: `expansion ${refs - refsInline >= 0 ? '+' : '−'}${us(Math.abs(refs - refsInline))}`,
      ratioJsonFloor: '',
      cpuFloor: '',
      cpuJsonFloor: '',
      cpuGateway: '',
      cpuRatio: '',
      cpuRatioJsonFloor: '',
      target: '(reported)',
      result: failures ? 'error' : 'info',
      otherLoad: `${median(mine.map((r) => r.foreignCpuPct)).toFixed(0)}%`,
      values: { backend, refsP50Us: refs, refsInlineP50Us: refsInline, references: REFERENCES, failures },
    });
  }
  return rows;
}

/** A throwaway redis-server on a free loopback port (no persistence); undefined when not installed. */
async function startRedis(tmp: string): Promise<{ child: ChildProcess; dir: string; port: number } | undefined> {
  const dir = mkdtempSync(path.join(tmp, 'redis-'));
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve(undefined);
    }, 10_000);
    child.once('error', () => {
      clearTimeout(timer);
      resolve(undefined);
    });
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (/Ready to accept connections/i.test(out)) {
        clearTimeout(timer);
        child.stdout!.resume();
        resolve({ child, dir, port });
      }
    });
  });
}
