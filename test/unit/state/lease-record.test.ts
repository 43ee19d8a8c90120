// Concurrency leases as a flat [id, expiresAt, …] array, and the object format of older file stores
// read into it (a gateway upgraded over a live state directory keeps its leases).
import { describe, expect, it } from 'vitest';
import { admitChecks, leaseRecordOf, releaseLeases, type AdmissionIo, type LeaseRecord } from '../../../src/state/admission-logic.js';

function io(): AdmissionIo & { leases: Map<string, LeaseRecord> } {
  const leases = new Map<string, LeaseRecord>();
  return {
    leases,
    getWindow: () => undefined,
    setWindow: () => undefined,
    getCounter: () => undefined,
    setCounter: () => undefined,
    getLeases: (k) => leases.get(k),
    setLeases: (k, v) => (v ? leases.set(k, v) : leases.delete(k)),
  };
}

describe('lease records', () => {
  it('reads the older object format and passes arrays through', () => {
    expect(leaseRecordOf({ a: 5, b: 7 })).toEqual(['a', 5, 'b', 7]);
    const arr = ['x', 1];
    expect(leaseRecordOf(arr)).toBe(arr);
    expect(leaseRecordOf(undefined)).toBeUndefined();
  });

  it('drops expired leases when taking one, and removes the key when the last one goes', () => {
    const s = io();
    s.leases.set('c', ['old', 100, 'live', 5_000]);
    const a = admitChecks([{ kind: 'concurrency', key: 'c', limit: 3, leaseMs: 1_000 }], 1_000, s);
    expect(a.ok).toBe(true);
    if (!a.ok) return;
    const id = a.leases[0]!.id;
    expect(s.leases.get('c')).toEqual(['live', 5_000, id, 2_000]);
    releaseLeases([{ key: 'c', id: 'live' }], 1_500, s);
    expect(s.leases.get('c')).toEqual([id, 2_000]);
    releaseLeases([{ key: 'c', id: 'unknown' }], 1_500, s);
    expect(s.leases.get('c')).toEqual([id, 2_000]);
    releaseLeases([{ key: 'c', id }], 1_600, s);
    expect(s.leases.has('c')).toBe(false);
  });
});
