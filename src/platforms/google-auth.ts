// Google OAuth access tokens for Vertex AI, from google-auth-library: Application Default Credentials
// (GOOGLE_APPLICATION_CREDENTIALS, gcloud's file, or the metadata server on GCE/GKE/Cloud Run, which
// GCE_METADATA_HOST may name) or a service-account key file. The library is imported on the first
// token, so a gateway without a Google provider never loads it; it reads process.env itself.
import { TokenCache, type FetchedToken } from './token-cache.js';

export const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

interface GoogleClient {
  getAccessToken(): Promise<{ token?: string | null }>;
  credentials: { expiry_date?: number | null };
}

/** One token cache per provider. `credentialsFile` '' = Application Default Credentials. `projectId`
 * (the config's) spares the library its own search for one (env, the gcloud CLI, the metadata server),
 * which costs seconds on the first token. */
export function googleTokens(providerName: string, credentialsFile: string, projectId: string, fetchTimeoutMs?: number): TokenCache {
  let auth: { getClient(): Promise<GoogleClient> } | undefined;
  const fetch = async (force: boolean): Promise<FetchedToken> => {
    if (!auth) {
      const { GoogleAuth } = await import('google-auth-library');
      auth = new GoogleAuth({ scopes: [CLOUD_PLATFORM_SCOPE], projectId, ...(credentialsFile !== '' ? { keyFilename: credentialsFile } : {}) }) as unknown as {
        getClient(): Promise<GoogleClient>;
      };
    }
    // The library caches the client (once found) and its token; ours decides when to ask again, and
    // the client refreshes when its token is within its own 5-minute window or gone.
    const client = await auth.getClient();
    // A refused token: mark the library's copy as expiring, so it fetches anew (metadata server, or a
    // forced re-signing of the service account's assertion) instead of returning it again.
    if (force) client.credentials.expiry_date = 1;
    const { token } = await client.getAccessToken();
    return { token: token ?? '', expiresAt: client.credentials.expiry_date ?? undefined };
  };
  return new TokenCache(fetch, `upstream ${providerName}: Google credentials`, Date.now, fetchTimeoutMs);
}
