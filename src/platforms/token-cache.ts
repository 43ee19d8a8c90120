// A bearer token from a credential source (Google OAuth, Microsoft Entra), cached and refreshed before
// it expires, with at most one refresh in flight however many requests wait for it. Inside the refresh
// window the still-valid token keeps serving while one refresh runs in the background, so traffic never
// waits on a refresh it did not need. A fetch has a deadline (credential-deadline.ts): past it, its waiters
// get the deployment's failure and the next request starts a new one.
import { GatewayError } from '../errors.js';
import { CredentialFetchTimeout, fetchWithin, MAX_CREDENTIAL_FETCH_MS } from './credential-deadline.js';

export interface FetchedToken {
  token: string;
  /** When it stops being valid, in ms since the epoch; undefined when the source does not say. */
  expiresAt: number | undefined;
}

/** Refresh this long before expiry at most (the cloud SDKs' own habit), and at most half a token's
 * life, so a short-lived token is not refreshed on every request. */
const MAX_MARGIN_MS = 5 * 60_000;
/** A token whose source gave no expiry is asked for again after this long (the library caches it). */
const UNKNOWN_LIFETIME_MS = 5 * 60_000;
/** After a background refresh failed, the still-valid token serves this long before the next try, so a
 * broken credential source is not asked again on every request. */
const RETRY_AFTER_FAILURE_MS = 1000;
/** A token younger than this is not dropped on a refusal: the refusal came from a request that still
 * carried the previous one (requests in flight when it was replaced). */
const MIN_AGE_TO_DROP_MS = 2000;

export class TokenCache {
  private token = '';
  private expiresAt = 0;
  private refreshAt = 0;
  private retryAt = 0;
  private fetchedAt = 0;
  /** The next fetch must not return the source's own cached token. */
  private force = false;
  private inFlight: Promise<string> | undefined;
  /** Refreshes done so far (diagnostics and tests). */
  refreshes = 0;

  /** `describe` names the deployment and the source in errors (`upstream p: Google credentials`); the
   * source's own error stays the cause and never reaches the message, so no secret can. */
  constructor(
    /** `force`: the cached token was refused; the source must fetch a new one, not return its cache.
     * `signal` fires at the fetch's deadline. */
    private readonly fetch: (force: boolean, signal: AbortSignal) => Promise<FetchedToken>,
    private readonly describe: string,
    private readonly now: () => number = Date.now,
    /** The bound on one fetch (credentialFetchBoundMs of the provider's connect timeout). */
    private readonly fetchTimeoutMs: number = MAX_CREDENTIAL_FETCH_MS,
  ) {}

  /** The current token, synchronously when one is valid and not yet due for refresh. */
  get(): string | Promise<string> {
    const now = this.now();
    if (this.token !== '' && now < this.refreshAt) return this.token;
    if (this.token !== '' && now < this.expiresAt) {
      // Due, not expired: serve this one and refresh behind it (a failure is retried by a later call).
      if (now >= this.retryAt) {
        this.refresh().catch(() => {
          this.retryAt = this.now() + RETRY_AFTER_FAILURE_MS;
        });
      }
      return this.token;
    }
    return this.refresh();
  }

  /** The cloud refused a token before its expiry (a revoked or rotated credential): drop it, so the next
   * request fetches a new one instead of failing until the refresh time. */
  invalidate(): void {
    if (this.token === '' || this.now() - this.fetchedAt < MIN_AGE_TO_DROP_MS) return;
    this.token = '';
    this.expiresAt = 0;
    this.refreshAt = 0;
    this.force = true;
  }

  private refresh(): Promise<string> {
    if (this.inFlight) return this.inFlight;
    const started = this.now();
    const force = this.force;
    this.force = false;
    const run = fetchWithin(this.fetchTimeoutMs, (signal) => this.fetch(force, signal)).then(
      (t) => {
        if (typeof t.token !== 'string' || t.token === '') throw new Error('the credential source returned no token');
        const expiresAt = t.expiresAt ?? started + UNKNOWN_LIFETIME_MS;
        this.token = t.token;
        this.fetchedAt = started;
        this.expiresAt = expiresAt;
        this.refreshAt = expiresAt - Math.min(MAX_MARGIN_MS, Math.max(0, (expiresAt - started) / 2));
        this.refreshes++;
        return t.token;
      },
      (err: unknown) => {
        if (force) this.force = true;
        const late = err instanceof CredentialFetchTimeout ? ` (no answer within ${err.ms} ms)` : '';
        throw new GatewayError('bad_gateway', `${this.describe}: could not get an access token${late}`, { upstreamStatus: 401, cause: err });
      },
    );
    this.inFlight = run;
    const clear = () => {
      if (this.inFlight === run) this.inFlight = undefined;
    };
    run.then(clear, clear);
    return run;
  }
}
