// Options every backend accepts besides its own connection settings.
import type { DocumentNamespace } from './types.js';

export const DEFAULT_NAMESPACE_MAX_BYTES = 64 * 1024 * 1024;

export interface StoreOptions {
  /** Byte bounds per document namespace; unnamed namespaces get `defaultMaxBytes`. */
  namespaces?: readonly DocumentNamespace[];
  defaultMaxBytes?: number;
  /** Tests move time; memory and file read it, Redis always uses the server's TIME. */
  now?: () => number;
  /** Hears every failed call (op: get|put|delete|admit|inspect|charge|release|read_counters|publish|ping),
   * for `switchyard_state_errors_total{op}`. */
  onError?: (op: string, err: Error) => void;
}

export function namespaceBounds(options: StoreOptions): (ns: string) => number {
  const bounds = new Map((options.namespaces ?? []).map((n) => [n.name, n.maxBytes]));
  const fallback = options.defaultMaxBytes ?? DEFAULT_NAMESPACE_MAX_BYTES;
  return (ns) => bounds.get(ns) ?? fallback;
}

/** One owner's share of each namespace (its whole bound when none is set). */
export function ownerBounds(options: StoreOptions): (ns: string) => number {
  const total = namespaceBounds(options);
  const shares = new Map((options.namespaces ?? []).map((n) => [n.name, n.ownerMaxBytes]));
  return (ns) => Math.min(shares.get(ns) ?? Infinity, total(ns));
}

/** What a document costs against its namespace's bound: its bytes plus its names. */
export function documentBytes(id: string, owner: string, value: Uint8Array): number {
  return value.byteLength + id.length + owner.length;
}

export function tooLarge(ns: string, bytes: number, max: number): Error {
  return new RangeError(`state: a document of ${bytes} bytes exceeds the ${ns} namespace bound of ${max} bytes`);
}
