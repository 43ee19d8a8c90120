// The real gateway (buildApp) with its Messages alias served by the scripted Bedrock, the Responses and
// Chat aliases by the first-party scripted upstream, and a first-party Anthropic deployment to fall back
// to. Shaped like gateway-harness.ts's Harness (`upstream` is the Bedrock fake), so the door clients and
// the conformance scenarios run through it unchanged.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { devNull } from 'node:os';
import pino from 'pino';
import { buildApp, type BuiltApp } from '../../../src/app.js';
import { resolveConfig } from '../../../src/config/load-config.js';
import { MODELS } from '../gateway-harness.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../scripted-upstream/index.js';
import { startBedrockUpstream, type BedrockUpstream, type BedrockUpstreamOptions } from './server.js';

export const BEDROCK_REGION = 'us-east-1';

export interface BedrockHarness {
  upstream: BedrockUpstream;
  /** The first-party scripted upstream (Responses and Chat aliases, the Anthropic fallback). */
  firstParty: ScriptedUpstream;
  gateway: BuiltApp;
  url: string;
  anthropic: Anthropic;
  openai: OpenAI;
  close(): Promise<void>;
}

export interface BedrockHarnessOptions {
  bedrock?: BedrockUpstreamOptions;
  /** Extra settings of the Bedrock provider (auth, api_key, cooldown, retry …). */
  provider?: Record<string, unknown>;
  /** The Bedrock model id behind the Messages alias. */
  model?: string;
  /** Extra raw config merged over the defaults (providers and models merged key by key). */
  config?: (urls: { bedrock: string; firstParty: string }) => { providers?: Record<string, unknown>; models?: Record<string, unknown>; [key: string]: unknown };
}

export async function startBedrockHarness(options: BedrockHarnessOptions = {}): Promise<BedrockHarness> {
  const upstream = await startBedrockUpstream({ region: BEDROCK_REGION, ...options.bedrock });
  const firstParty = await startScriptedUpstream();
  const base = firstParty.url;
  const { providers: extraProviders, models: extraModels, ...extraTop } = options.config?.({ bedrock: upstream.url, firstParty: base }) ?? {};
  const raw: Record<string, unknown> = {
    auth: { open: true },
    ...extraTop,
    server: { host: '127.0.0.1', port: 0, heartbeat_ms: 10_000 },
    log: { level: 'silent' },
    providers: {
      'up-messages': { protocol: 'messages', platform: 'bedrock', region: BEDROCK_REGION, base_url: upstream.url, retry: { attempts: 1 }, ...options.provider },
      'up-responses': { protocol: 'responses', base_url: base + '/v1', api_key: 'upstream-key-responses', retry: { attempts: 1 } },
      'up-chat': { protocol: 'chat', base_url: base + '/v1', api_key: 'upstream-key-chat', retry: { attempts: 1 }, echo_reasoning_content: true },
      'anthropic-direct': { protocol: 'messages', base_url: base, api_key: 'upstream-key-anthropic', retry: { attempts: 1 } },
      ...extraProviders,
    },
    models: {
      [MODELS.messages.alias]: { provider: 'up-messages', model: options.model ?? MODELS.messages.upstream },
      [MODELS.responses.alias]: { provider: 'up-responses', model: MODELS.responses.upstream },
      [MODELS.chat.alias]: { provider: 'up-chat', model: MODELS.chat.upstream },
      ...extraModels,
    },
  };
  const config = resolveConfig(raw, 'test');
  const gateway = buildApp(config, { logger: pino({ level: 'silent' }) });
  await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  gateway.setReady(true);
  const address = gateway.app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const url = `http://127.0.0.1:${port}`;
  return {
    upstream,
    firstParty,
    gateway,
    url,
    anthropic: new Anthropic({ baseURL: url, apiKey: 'caller-key', maxRetries: 0 }),
    openai: new OpenAI({ baseURL: url + '/v1', apiKey: 'caller-key', maxRetries: 0 }),
    async close() {
      await gateway.app.close();
      await upstream.close();
      await firstParty.close();
    },
  };
}

/** Sets AWS environment variables for the default credential chain (and keeps the chain off the
 * network: no instance metadata, no profile); returns the function that restores them. */
export function setAwsEnv(vars: Record<string, string | undefined>): () => void {
  const names = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_CREDENTIAL_EXPIRATION', 'AWS_PROFILE', 'AWS_CONFIG_FILE', 'AWS_SHARED_CREDENTIALS_FILE', 'AWS_EC2_METADATA_DISABLED', 'AWS_BEARER_TOKEN_BEDROCK'];
  const saved = new Map(names.map((n) => [n, process.env[n]]));
  for (const n of names) delete process.env[n];
  process.env.AWS_EC2_METADATA_DISABLED = 'true';
  // No shared config or credentials files of the machine running the tests.
  process.env.AWS_CONFIG_FILE = devNull;
  process.env.AWS_SHARED_CREDENTIALS_FILE = devNull;
  for (const [k, v] of Object.entries(vars)) if (v !== undefined) process.env[k] = v;
  return () => {
    for (const [n, v] of saved) {
      if (v === undefined) delete process.env[n];
      else process.env[n] = v;
    }
  };
}
