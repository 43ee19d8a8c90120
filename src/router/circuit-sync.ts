// Circuit state shared between processes (file and redis backends): a circuit this process opens or
// closes is published on one channel; every other process applies it to its own DeploymentHealth, so
// all workers and instances skip a failing deployment together instead of each paying its failures.
// Best effort like the channel itself: a message lost while the store is away only means that process
// learns from its own failures, as it would without sharing.
import { randomBytes } from 'node:crypto';
import type { StateStore } from '../state/types.js';
import type { CircuitChange, DeploymentHealth } from './deployment-health.js';

export const CIRCUIT_CHANNEL = 'circuits';

interface Message {
  /** The publishing process: every process hears its own messages too, and skips them. */
  from: string;
  change: CircuitChange;
}

/** Wires `health` to the store's channel; returns the unsubscribe. */
export function shareCircuits(health: DeploymentHealth, store: StateStore, onError: (err: unknown) => void): () => void {
  const self = randomBytes(8).toString('hex');
  health.onLocalTransition = (change) => {
    const message: Message = { from: self, change };
    store.publish(CIRCUIT_CHANNEL, JSON.stringify(message)).catch(onError);
  };
  return store.subscribe(CIRCUIT_CHANNEL, (text) => {
    let message: Message;
    try {
      message = JSON.parse(text) as Message;
    } catch {
      return;
    }
    if (message.from === self || !isChange(message.change)) return;
    health.applyRemote(message.change);
  });
}

function isChange(c: unknown): c is CircuitChange {
  if (c === null || typeof c !== 'object') return false;
  const x = c as Record<string, unknown>;
  if (typeof x.deployment !== 'string') return false;
  if (x.state === 'closed') return true;
  return x.state === 'open' && typeof x.openMs === 'number' && x.openMs >= 0 && typeof x.trips === 'number';
}
