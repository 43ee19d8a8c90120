// Microsoft Entra ID bearer tokens for Azure OpenAI, from @azure/identity's DefaultAzureCredential
// (environment service principal, workload identity on AKS, managed identity on App Service and VMs,
// the Azure CLI). The library is imported on the first token, so a gateway without an Entra provider
// never loads it; it reads process.env itself.
import { TokenCache, type FetchedToken } from './token-cache.js';

export const COGNITIVE_SERVICES_SCOPE = 'https://cognitiveservices.azure.com/.default';

/** The part of @azure/identity's TokenCredential used here (tests inject their own). */
export interface EntraCredential {
  getToken(scope: string, options?: { abortSignal?: AbortSignal }): Promise<{ token: string; expiresOnTimestamp: number } | null>;
}

export function entraTokens(providerName: string, credential?: EntraCredential, fetchTimeoutMs?: number): TokenCache {
  let source = credential;
  const fetch = async (_force: boolean, signal: AbortSignal): Promise<FetchedToken> => {
    if (!source) {
      const { DefaultAzureCredential } = await import('@azure/identity');
      source = new DefaultAzureCredential();
    }
    const t = await source.getToken(COGNITIVE_SERVICES_SCOPE, { abortSignal: signal });
    if (!t) throw new Error('no Entra token');
    return { token: t.token, expiresAt: t.expiresOnTimestamp };
  };
  return new TokenCache(fetch, `upstream ${providerName}: Microsoft Entra credentials`, Date.now, fetchTimeoutMs);
}
