// The record rules that the memory and file backends share (redis-scripts.ts RECORDS mirrors them):
// every expectation is checked before anything is written, so a write lands whole or not at all.
import type { RecordWrite, RecordWriteResult } from './types.js';

export interface RecordIo {
  get(id: string): string | undefined;
  put(id: string, value: string): void;
  remove(id: string): void;
}

/** Checks every write's expectation, then applies them all; `version` is the version before. */
export function applyRecordWrites(writes: readonly RecordWrite[], io: RecordIo, version: number): RecordWriteResult {
  for (let i = 0; i < writes.length; i++) {
    const w = writes[i]!;
    if (w.expect === undefined) continue;
    const current = io.get(w.id) ?? null;
    if (current !== w.expect) return { ok: false, failed: i, current };
  }
  for (const w of writes) {
    if (w.value === null) io.remove(w.id);
    else io.put(w.id, w.value);
  }
  return { ok: true, version: version + 1 };
}

/**
 * The ids changed after version `since`, from a change list newest last, or undefined when the list
 * does not hold every version from since + 1 to `version` (too old, or a write that kept none).
 */
export function changedIdsSince(since: number, version: number, changes: readonly { version: number; ids: readonly string[] }[]): string[] | undefined {
  if (since === version) return [];
  if (since < 0 || since > version) return undefined;
  const n = version - since;
  if (n > changes.length) return undefined;
  const ids = new Set<string>();
  for (let i = 0; i < n; i++) {
    const c = changes[changes.length - n + i]!;
    if (c.version !== since + 1 + i) return undefined;
    for (const id of c.ids) ids.add(id);
  }
  return [...ids];
}
