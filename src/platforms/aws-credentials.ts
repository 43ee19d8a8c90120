// AWS credentials for SigV4, held between requests: a request reads the cached identity synchronously;
// temporary credentials (STS, web identity on Kubernetes, SSO, credential_process) are refreshed in
// the background before they expire, one refresh at a time however many requests arrive meanwhile.
// Only when they are about to expire does a request wait for the refresh. A refresh has a deadline
// (credential-deadline.ts): past it, its waiters fail and the next request starts a new one.
import { fetchWithin, MAX_CREDENTIAL_FETCH_MS } from './credential-deadline.js';

export interface AwsIdentity {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  expiration?: Date;
}

/** `forceRefresh`: past the first fetch, ask the chain for fresh credentials rather than its memo. */
export type IdentityProvider = (options?: { forceRefresh?: boolean }) => Promise<AwsIdentity>;

/** Refresh this long before expiry at most (the AWS SDKs' own window)… */
const REFRESH_WINDOW_MS = 5 * 60_000;
/** …and wait for the refresh once this close to it. */
const STALE_WINDOW_MS = 30_000;

export class AwsCredentialCache {
  private current: AwsIdentity | undefined;
  /** From here on a request starts a background refresh. */
  private refreshAt = 0;
  /** From here on a request waits for fresh credentials. */
  private staleAt = 0;
  private inFlight: Promise<AwsIdentity> | undefined;
  /** Refreshes started (for tests and diagnostics). */
  refreshes = 0;

  constructor(
    private readonly provider: IdentityProvider,
    private readonly now: () => number = Date.now,
    /** The bound on one refresh (credentialFetchBoundMs of the provider's connect timeout). */
    private readonly fetchTimeoutMs: number = MAX_CREDENTIAL_FETCH_MS,
  ) {}

  get(): AwsIdentity | Promise<AwsIdentity> {
    const c = this.current;
    if (c !== undefined) {
      const t = this.now();
      if (t < this.refreshAt) return c;
      if (t < this.staleAt) {
        // Still good for a while: this request goes out with them, the refresh runs beside it.
        this.refresh().catch(() => undefined);
        return c;
      }
    }
    return this.refresh();
  }

  /** After AWS refused them (expired or revoked): the next request fetches fresh ones first. */
  invalidate(): void {
    this.refreshAt = 0;
    this.staleAt = 0;
  }

  private refresh(): Promise<AwsIdentity> {
    if (this.inFlight) return this.inFlight;
    const first = this.current === undefined;
    this.refreshes++;
    const p = fetchWithin(this.fetchTimeoutMs, () => this.provider(first ? undefined : { forceRefresh: true })).then(
      (identity) => {
        this.store(identity);
        if (this.inFlight === p) this.inFlight = undefined;
        return identity;
      },
      (err: unknown) => {
        if (this.inFlight === p) this.inFlight = undefined;
        throw err;
      },
    );
    this.inFlight = p;
    return p;
  }

  private store(identity: AwsIdentity): void {
    this.current = identity;
    const expires = identity.expiration?.getTime();
    if (expires === undefined || !Number.isFinite(expires)) {
      this.refreshAt = this.staleAt = Infinity; // long-term keys: never refreshed
      return;
    }
    // Short-lived credentials (minutes) are refreshed halfway through their life, long ones 5 minutes
    // before the end; a request only waits in the last tenth (at most 30 s).
    const life = Math.max(0, expires - this.now());
    this.refreshAt = expires - Math.min(REFRESH_WINDOW_MS, life / 2);
    this.staleAt = expires - Math.min(STALE_WINDOW_MS, life / 10);
  }
}
