// The gateway (in process) with GPT models on Azure OpenAI, through the Azure fake in front of the
// scripted upstream: `via-responses` on the v1 API (`api-key`), `via-chat` on a deployment URL with an
// api-version, so the conformance matrix runs unchanged; `azure-resource` is Responses on
// `/openai/responses?api-version=` with the deployment as model; `azure-entra` authenticates with an
// Entra token from the managed-identity fake; `gpt-fallback` tries a deployment with a wrong key first.
//
// @azure/identity reads process.env itself (main.ts passes nothing to it): IDENTITY_ENDPOINT and
// IDENTITY_HEADER name the managed-identity endpoint, as App Service sets them. Both are set for the
// harness's life and restored on close.
import { MODELS, startHarness, type Harness } from './gateway-harness.js';
import { startAzureFake, type AzureFake } from './azure-fake.js';
import { startAzureIdentityFake, type AzureIdentityFake } from './azure-identity-fake.js';

export interface AzureHarness extends Harness {
  azure: AzureFake;
  identity: AzureIdentityFake;
}

export const AZURE_KEY = 'azure-key-1';
export const CHAT_API_VERSION = '2024-10-21';
export const RESPONSES_API_VERSION = '2025-04-01-preview';

export async function startAzureHarness(options: { tokenLifetimeSec?: number } = {}): Promise<AzureHarness> {
  const identity = await startAzureIdentityFake({ lifetimeSec: options.tokenLifetimeSec });
  const deployments = { [MODELS.responses.upstream]: MODELS.responses.upstream, [MODELS.chat.upstream]: MODELS.chat.upstream, 'gpt-entra': 'gpt-entra-model' };
  const azure = await startAzureFake({ apiKey: AZURE_KEY, deployments, entraValid: (t) => identity.valid(t), upstreamUrl: 'http://127.0.0.1:1' });
  const saved = { endpoint: process.env.IDENTITY_ENDPOINT, header: process.env.IDENTITY_HEADER };
  process.env.IDENTITY_ENDPOINT = identity.endpoint;
  process.env.IDENTITY_HEADER = identity.header;
  const v1 = azure.endpoint + '/openai/v1';
  const h = await startHarness({
    config: (url) => {
      azure.forwardTo = url;
      return {
        providers: {
          'azure-v1': { protocol: 'responses', platform: 'azure', base_url: v1, api_key: AZURE_KEY, retry: { attempts: 1 } },
          'azure-deployment': {
            protocol: 'chat',
            platform: 'azure',
            base_url: azure.endpoint,
            deployment: MODELS.chat.upstream,
            api_version: CHAT_API_VERSION,
            api_key: AZURE_KEY,
            retry: { attempts: 1 },
            echo_reasoning_content: true,
          },
          'azure-resource': {
            protocol: 'responses',
            platform: 'azure',
            base_url: azure.endpoint + '/openai',
            deployment: MODELS.responses.upstream,
            api_version: RESPONSES_API_VERSION,
            api_key: AZURE_KEY,
            retry: { attempts: 1 },
          },
          'azure-entra': { protocol: 'chat', platform: 'azure', base_url: v1, auth: 'entra', retry: { attempts: 1 } },
          'azure-wrong-key': {
            protocol: 'chat',
            platform: 'azure',
            base_url: v1,
            api_key: 'not-the-key',
            retry: { attempts: 1 },
            cooldown: { failures: 1, window_ms: 60_000, cooldown_ms: 60_000, max_cooldown_ms: 60_000 },
          },
          'openai-direct': { protocol: 'responses', base_url: url + '/v1', api_key: 'upstream-key-direct', retry: { attempts: 1 } },
        },
        models: {
          [MODELS.responses.alias]: { provider: 'azure-v1', model: MODELS.responses.upstream },
          [MODELS.chat.alias]: { provider: 'azure-deployment', model: MODELS.chat.upstream },
          'azure-resource': { provider: 'azure-resource', model: 'any-name' },
          'azure-entra': { provider: 'azure-entra', model: 'gpt-entra' },
          'gpt-fallback': {
            targets: [
              { provider: 'azure-wrong-key', model: MODELS.chat.upstream },
              { provider: 'openai-direct', model: 'gpt-direct-1' },
            ],
          },
        },
      };
    },
  });
  return {
    ...h,
    azure,
    identity,
    async close() {
      await h.close();
      await azure.close();
      await identity.close();
      for (const [k, v] of [['IDENTITY_ENDPOINT', saved.endpoint], ['IDENTITY_HEADER', saved.header]] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    },
  };
}
