// --workers N: the status page shows the whole machine. The worker serving /status.json asks the
// primary, the primary asks every worker for its part (status-part.ts) and hands the parts back; the
// asking worker merges them, as /metrics merges every worker's registry. A worker that does not
// answer within PART_TIMEOUT_MS is left out (the page shows how many answered).
import cluster, { type Worker } from 'node:cluster';
import type { StatusPart } from './status-part.js';

const ASK = 'switchyard:status?';
const ANSWER = 'switchyard:status!';
const PART_ASK = 'switchyard:status-part?';
const PART_ANSWER = 'switchyard:status-part!';
export const PART_TIMEOUT_MS = 2_000;

interface Message {
  type: string;
  id: number;
  part?: StatusPart;
  parts?: StatusPart[];
}

/** In the primary: relays a worker's question to every worker and returns the parts. */
export function statusBroker(): { attach(worker: Worker): void } {
  let next = 0;
  const collecting = new Map<number, { parts: StatusPart[]; waiting: number; done: () => void }>();
  const workers = (): Worker[] => Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && w.isConnected());
  return {
    attach(worker) {
      worker.on('message', (msg: Message) => {
        if (msg?.type === PART_ANSWER) {
          const c = collecting.get(msg.id);
          if (c && msg.part) {
            c.parts.push(msg.part);
            if (--c.waiting === 0) c.done();
          }
          return;
        }
        if (msg?.type !== ASK) return;
        const id = next++;
        const targets = workers();
        const entry = {
          parts: [] as StatusPart[],
          waiting: targets.length,
          done: () => {
            clearTimeout(timer);
            if (!collecting.delete(id)) return;
            if (worker.isConnected()) worker.send({ type: ANSWER, id: msg.id, parts: entry.parts });
          },
        };
        const timer = setTimeout(entry.done, PART_TIMEOUT_MS);
        timer.unref();
        collecting.set(id, entry);
        for (const w of targets) w.send({ type: PART_ASK, id });
        if (targets.length === 0) entry.done();
      });
    },
  };
}

/** In a worker: answer the primary with this worker's part; returns the source of every worker's parts. */
export function workerStatusParts(localPart: () => StatusPart): () => Promise<StatusPart[]> {
  let next = 0;
  const pending = new Map<number, (parts: StatusPart[]) => void>();
  process.on('message', (msg: Message) => {
    if (msg?.type === PART_ASK) {
      process.send?.({ type: PART_ANSWER, id: msg.id, part: localPart() });
      return;
    }
    if (msg?.type !== ANSWER) return;
    const resolve = pending.get(msg.id);
    if (!resolve) return;
    pending.delete(msg.id);
    resolve(msg.parts ?? []);
  });
  return () =>
    new Promise<StatusPart[]>((resolve, reject) => {
      const id = next++;
      pending.set(id, (parts) => (parts.length > 0 ? resolve(parts) : reject(new Error('no worker answered'))));
      process.send!({ type: ASK, id });
      setTimeout(() => {
        if (pending.delete(id)) reject(new Error('status aggregation timed out'));
      }, PART_TIMEOUT_MS * 2).unref();
    });
}
