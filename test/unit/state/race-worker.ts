// A separate OS process for the cross-process contract tests: opens the same store as the parent
// and races admissions, writes a document, or publishes — then prints one JSON line and exits.
// `grow` writes documents in two rounds and waits for a line on stdin between them (another process
// opens the store meanwhile), printing `grown` when the first round is in.
import { FileStateStore } from '../../../src/state/file-store.js';
import { RedisStateStore } from '../../../src/state/redis-store.js';
import type { StateStore } from '../../../src/state/types.js';

const [backend, location, prefix, mode, arg1, arg2] = process.argv.slice(2);

function open(): StateStore {
  if (backend === 'file') return new FileStateStore({ path: location! });
  if (backend === 'redis') return new RedisStateStore({ url: location!, keyPrefix: prefix });
  throw new Error(`unknown backend ${backend}`);
}

async function main(): Promise<void> {
  const store = open();
  let result: unknown;
  if (mode === 'race') {
    // arg1: attempts, arg2: start time (ms epoch), so every process fires at the same moment.
    const attempts = Number(arg1);
    const startAt = Number(arg2);
    while (Date.now() < startAt) await new Promise((r) => setTimeout(r, 2));
    const results = await Promise.all(
      Array.from({ length: attempts }, () => store.admit([{ kind: 'window', key: 'race', windowMs: 60_000, limit: 100, cost: 1 }])),
    );
    result = { admitted: results.filter((r) => r.ok).length };
  } else if (mode === 'put') {
    await store.putDoc('docs', arg1!, 'owner-a', Buffer.from(arg2!), 60_000);
    result = { put: arg1 };
  } else if (mode === 'grow') {
    // arg1: documents a round, arg2: bytes each.
    const n = Number(arg1);
    const doc = Buffer.alloc(Number(arg2), 120);
    for (let i = 0; i < n; i++) await store.putDoc('docs', `first-${i}`, 'owner-a', doc, 60_000);
    process.stdout.write('grown\n');
    await new Promise((r) => process.stdin.once('data', r));
    for (let i = 0; i < n; i++) await store.putDoc('docs', `second-${i}`, 'owner-a', doc, 60_000);
    const back = await store.getDoc('docs', `first-0`, 'owner-a');
    result = { wrote: 2 * n, firstBack: back?.byteLength };
  } else if (mode === 'publish') {
    await store.publish(arg1!, arg2!);
    result = { published: arg2 };
  } else {
    throw new Error(`unknown mode ${mode}`);
  }
  await store.close();
  process.stdout.write(JSON.stringify(result) + '\n');
}

main().catch((err: unknown) => {
  process.stderr.write(String((err as Error).stack ?? err) + '\n');
  process.exit(1);
});
