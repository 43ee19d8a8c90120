// Summarises a V8 heap snapshot (from `bench/paced-memory.ts --snapshot`) by constructor: count, self
// size and retained size (dominator tree), largest first, optionally divided per stream:
//
//   node --import tsx bench/heap-summary.ts bench/results/profiles/X.heapsnapshot [--top 40] [--per 1000]
//
// Retained size of a group is the sum over its objects that no other object of the same group dominates,
// so nested objects of one kind are not counted twice.
import { readFileSync } from 'node:fs';
import { parseFlags } from './cli-flags.js';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] }; node_count: number };
  nodes: number[];
  edges: number[];
  strings: string[];
}

type Rows = Map<string, { count: number; self: number; retained: number }>;

function main(): void {
  const file = process.argv[2];
  if (!file) throw new Error('usage: heap-summary.ts FILE.heapsnapshot [--top N] [--per N] [--baseline IDLE.heapsnapshot]');
  const flags = parseFlags(process.argv.slice(3));
  const top = Number(flags.get('top') ?? 40);
  const per = Number(flags.get('per') ?? 1);
  const baselineFile = flags.get('baseline');
  const { rows } = summarise(file, top, per, Number(flags.get('largest') ?? 0), flags.get('group'), !baselineFile);
  if (!baselineFile) return;
  // --baseline: what the snapshot holds beyond an idle one, per unit (e.g. per open stream): the
  // difference of each group's count, self and retained size, largest self-size difference first.
  const { rows: base } = summarise(baselineFile, top, per, 0, undefined, false);
  const diff = [...rows].map(([g, r]) => {
    const b = base.get(g) ?? { count: 0, self: 0, retained: 0 };
    return [g, { count: r.count - b.count, self: r.self - b.self, retained: r.retained - b.retained }] as const;
  });
  const total = diff.reduce((t, [, r]) => t + r.self, 0);
  console.log(`\nbeyond ${baselineFile}${per > 1 ? `, per unit (÷ ${per})` : ''}: self size ${(total / per / 1024).toFixed(2)} KiB\n${'count'.padStart(9)} ${'self KiB'.padStart(10)} ${'retained KiB'.padStart(13)}  group`);
  for (const [g, r] of diff.sort((a, b) => b[1].self - a[1].self).slice(0, top)) {
    console.log(`${(r.count / per).toFixed(2).padStart(9)} ${(r.self / per / 1024).toFixed(3).padStart(10)} ${(r.retained / per / 1024).toFixed(2).padStart(13)}  ${g.slice(0, 100)}`);
  }
}

function summarise(file: string, top: number, per: number, largest: number, wantGroup: string | undefined, print: boolean): { rows: Rows } {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const { meta } = snap.snapshot;
  const nf = meta.node_fields.length;
  const ef = meta.edge_fields.length;
  const nType = meta.node_fields.indexOf('type');
  const nName = meta.node_fields.indexOf('name');
  const nSize = meta.node_fields.indexOf('self_size');
  const nEdges = meta.node_fields.indexOf('edge_count');
  const eType = meta.edge_fields.indexOf('type');
  const eTo = meta.edge_fields.indexOf('to_node');
  const nodeTypes = meta.node_types[0];
  const edgeTypes = meta.edge_types[0];
  const weak = edgeTypes.indexOf('weak');
  const shortcut = edgeTypes.indexOf('shortcut');
  const { nodes, edges, strings } = snap;
  const n = nodes.length / nf;

  // Group key: the constructor name for objects, the node type otherwise (strings, code, arrays...).
  const group = new Array<string>(n);
  for (let i = 0; i < n; i++) {
    const t = nodeTypes[nodes[i * nf + nType]!]!;
    const name = strings[nodes[i * nf + nName]!]!;
    group[i] = t === 'object' || t === 'closure' || t === 'native' ? `${name} (${t})` : `(${t})`;
  }

  // Successors in CSR form, weak edges left out (they do not retain).
  const firstEdge = new Uint32Array(n + 1);
  for (let i = 0; i < n; i++) firstEdge[i + 1] = firstEdge[i]! + nodes[i * nf + nEdges]!;
  const succ = (i: number, f: (j: number) => void) => {
    for (let e = firstEdge[i]!; e < firstEdge[i + 1]!; e++) {
      const t = edges[e * ef + eType]!;
      if (t === weak || t === shortcut) continue;
      f(edges[e * ef + eTo]! / nf);
    }
  };

  // Reverse post-order from the root (node 0), then Cooper–Harvey–Kennedy iterative dominators.
  const order = new Int32Array(n).fill(-1);
  const post: number[] = [];
  const stack: number[] = [0];
  const iter = new Uint32Array(n);
  const visited = new Uint8Array(n);
  visited[0] = 1;
  while (stack.length) {
    const v = stack[stack.length - 1]!;
    let pushed = false;
    while (iter[v]! < firstEdge[v + 1]! - firstEdge[v]!) {
      const e = firstEdge[v]! + iter[v]!++;
      const t = edges[e * ef + eType]!;
      if (t === weak || t === shortcut) continue;
      const w = edges[e * ef + eTo]! / nf;
      if (!visited[w]) {
        visited[w] = 1;
        stack.push(w);
        pushed = true;
        break;
      }
    }
    if (!pushed) {
      order[v] = post.length;
      post.push(stack.pop()!);
    }
  }
  const preds: number[][] = Array.from({ length: n }, () => []);
  for (let i = 0; i < n; i++) if (visited[i]) succ(i, (j) => visited[j] && preds[j]!.push(i));
  const idom = new Int32Array(n).fill(-1);
  idom[0] = 0;
  const intersect = (a: number, b: number) => {
    while (a !== b) {
      while (order[a]! < order[b]!) a = idom[a]!;
      while (order[b]! < order[a]!) b = idom[b]!;
    }
    return a;
  };
  for (let changed = true; changed; ) {
    changed = false;
    for (let k = post.length - 2; k >= 0; k--) {
      const v = post[k]!;
      let d = -1;
      for (const p of preds[v]!) if (idom[p] !== -1) d = d === -1 ? p : intersect(p, d);
      if (d !== -1 && idom[v] !== d) {
        idom[v] = d;
        changed = true;
      }
    }
  }
  const retained = new Float64Array(n);
  for (let i = 0; i < n; i++) retained[i] = nodes[i * nf + nSize]!;
  for (const v of post) if (v !== 0 && idom[v]! >= 0) retained[idom[v]!] += retained[v]!;

  const rows: Rows = new Map();
  for (let i = 0; i < n; i++) {
    if (!visited[i]) continue;
    const g = group[i]!;
    let r = rows.get(g);
    if (!r) rows.set(g, (r = { count: 0, self: 0, retained: 0 }));
    r.count++;
    r.self += nodes[i * nf + nSize]!;
    // Count the retained size only at the topmost object of this group on the dominator chain.
    let d = idom[i]!;
    let nested = false;
    while (d !== 0 && d !== -1) {
      if (group[d] === g) {
        nested = true;
        break;
      }
      d = idom[d]!;
    }
    if (!nested) r.retained += retained[i]!;
  }
  if (!print) return { rows };
  const total = [...rows.values()].reduce((s, r) => s + r.self, 0);
  console.log(`${n} nodes, ${(total / 1048576).toFixed(1)} MiB reachable self size${per > 1 ? `; per-unit figures divided by ${per}` : ''}`);
  const fmt = (b: number) => (per > 1 ? `${(b / per / 1024).toFixed(2)} KiB` : `${(b / 1048576).toFixed(2)} MiB`);
  const line = (label: string, sorted: [string, { count: number; self: number; retained: number }][]) => {
    console.log(`\n${label}\n${'count'.padStart(9)} ${'self'.padStart(11)} ${'retained'.padStart(11)}  group`);
    for (const [g, r] of sorted.slice(0, top)) console.log(`${String(r.count).padStart(9)} ${fmt(r.self).padStart(11)} ${fmt(r.retained).padStart(11)}  ${g.slice(0, 100)}`);
  };
  line('by self size', [...rows].sort((a, b) => b[1].self - a[1].self));
  line('by retained size', [...rows].sort((a, b) => b[1].retained - a[1].retained));

  // --largest N: the N largest single objects of a group (--group, default array buffers) with their
  // dominator chain, to see who holds them.
  if (largest > 0) {
    const want = wantGroup ?? 'system / JSArrayBufferData (native)';
    const picks = [];
    for (let i = 0; i < n; i++) if (visited[i] && group[i] === want) picks.push(i);
    picks.sort((a, b) => retained[b]! - retained[a]!);
    const sizes = new Map<number, number>();
    for (const i of picks) sizes.set(retained[i]!, (sizes.get(retained[i]!) ?? 0) + 1);
    console.log(`\n${want}: sizes (bytes × count): ${[...sizes].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([s, c]) => `${s}×${c}`).join(', ')}`);
    for (const i of picks.slice(0, largest)) {
      const chain: string[] = [];
      for (let d = idom[i]!, k = 0; d > 0 && k < 8; d = idom[d]!, k++) chain.push(group[d]!.replace(/ \(object\)$/, ''));
      console.log(`${(retained[i]! / 1024).toFixed(1).padStart(9)} KiB  ← ${chain.join(' ← ')}`);
    }
  }
  return { rows };
}

main();
