// One credential fetch (a Google or Entra token, a set of AWS credentials) bounded in time: at the
// deadline its waiters get a failure and the cache that started it may start another; its AbortSignal
// fires, and the sources that can be stopped are (a credential_process's process group, an Entra
// request). The signal is also this async context's, so a source reached through a library that takes
// no signal (the AWS chain running credential_process) can still find it.
import { AsyncLocalStorage } from 'node:async_hooks';

/** The longest one credential fetch may take, whatever the provider's connect timeout. */
export const MAX_CREDENTIAL_FETCH_MS = 10_000;

/** A provider's bound on one credential fetch: its connect timeout, at most 10 s. */
export function credentialFetchBoundMs(connectMs: number): number {
  return Math.min(connectMs, MAX_CREDENTIAL_FETCH_MS);
}

/** The fetch missed its deadline (the message names no source and no secret). */
export class CredentialFetchTimeout extends Error {
  constructor(readonly ms: number) {
    super(`the credential source did not answer within ${ms} ms`);
    this.name = 'CredentialFetchTimeout';
  }
}

const fetchContext = new AsyncLocalStorage<AbortSignal>();

/** The deadline signal of the credential fetch this code runs for, if any. */
export function credentialFetchSignal(): AbortSignal | undefined {
  return fetchContext.getStore();
}

/** `fetch`'s result, or CredentialFetchTimeout at `ms` (then `signal` fires; a later result is dropped). */
export function fetchWithin<T>(ms: number, fetch: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      const err = new CredentialFetchTimeout(ms);
      reject(err);
      controller.abort(err);
    }, ms);
    timer.unref();
    const settle = <A>(done: (a: A) => void) => (a: A) => {
      clearTimeout(timer);
      done(a);
    };
    let work: Promise<T>;
    try {
      work = fetchContext.run(controller.signal, () => fetch(controller.signal));
    } catch (err) {
      settle(reject)(err);
      return;
    }
    work.then(settle(resolve), settle(reject));
  });
}
