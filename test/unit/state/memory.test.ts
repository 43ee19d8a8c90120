import { describe } from 'vitest';
import { MemoryStateStore } from '../../../src/state/memory-store.js';
import { stateStoreContract } from './contract.js';

describe('memory state store', () => {
  let now = Date.now();
  stateStoreContract({
    make: async (options) => new MemoryStateStore({ ...options, now: () => now }),
    advance: async (ms) => {
      now += ms;
    },
    slackMs: 0,
  });
});
