// The "caller left" switch of one generation request, thrown by the route when the caller's
// connection closes before its answer is complete. It offers what the router and the lanes read of
// an AbortController (`signal.aborted`, an 'abort' listener, `abort()`) without one: creating an
// AbortSignal (an EventTarget) per request was ~1.5% of a pass-through request's CPU. The upstream
// request itself is aborted through Generation.upstreamAbort, not through a listener here.
import type { CallerSignal } from '../router/attempts.js';

/** What a Generation needs of the switch: an AbortController fits too (tests use one). */
export interface ClientGoneSwitch {
  readonly signal: CallerSignal;
  abort(): void;
}

export class ClientGone implements ClientGoneSwitch, CallerSignal {
  aborted = false;
  private listeners: (() => void)[] | undefined = undefined;

  /** The switch is its own signal. */
  get signal(): CallerSignal {
    return this;
  }

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    const listeners = this.listeners;
    this.listeners = undefined;
    if (listeners) for (const l of listeners) l();
  }

  /** Listeners run once, when the caller leaves (the router's wait between retries). */
  addEventListener(_type: 'abort', listener: () => void): void {
    (this.listeners ??= []).push(listener);
  }
}
