// A one-shot abort for one upstream request, in the shape undici's `request` accepts as its `signal`
// (EventEmitter style: `on`/`once`/`removeListener`, `aborted`, `reason`; see undici's
// api/api-request.js and core/util.js addAbortListener). An AbortController costs a controller, an
// AbortSignal and EventTarget listener bookkeeping per request on the hot path; undici registers one
// listener and removes it when the body closes, which is all this keeps. It also remembers why it
// was thrown (the first reason given wins).

/** client: the caller left; timeout: the provider's total time limit; shutdown: the drain's deadline. */
export type AbortWhy = 'client' | 'timeout' | 'shutdown';

export class AbortSwitch {
  aborted = false;
  /** undici's abort error when undefined (RequestAbortedError). */
  readonly reason: undefined = undefined;
  /** Why it was thrown, when a reason was given. */
  why: AbortWhy | undefined = undefined;
  private listener: (() => void) | undefined = undefined;

  abort(why?: AbortWhy): void {
    this.why ??= why;
    if (this.aborted) return;
    this.aborted = true;
    const listener = this.listener;
    this.listener = undefined;
    listener?.();
  }

  /** undici's only use: one 'abort' listener, called at most once. */
  once(_event: 'abort', listener: () => void): this {
    this.listener = listener;
    return this;
  }

  on(event: 'abort', listener: () => void): this {
    return this.once(event, listener);
  }

  removeListener(_event: 'abort', listener: () => void): this {
    if (this.listener === listener) this.listener = undefined;
    return this;
  }
}
