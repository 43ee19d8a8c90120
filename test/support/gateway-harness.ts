// Starts the real gateway (buildApp) on an ephemeral loopback port in front of a scripted upstream,
// with one model alias per upstream protocol, and the official SDKs pointed at it.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import pino, { type Logger } from 'pino';
import { buildApp, type BuiltApp } from '../../src/app.js';
import { resolveConfig } from '../../src/config/load-config.js';
import { startScriptedUpstream, type ScriptedUpstream } from './scripted-upstream/index.js';
import type { ScriptedUpstreamOptions } from './scripted-upstream/types.js';

export type UpstreamProtocol = 'messages' | 'responses' | 'chat' | 'gemini';

/** Alias per upstream protocol, and the model name the upstream must receive. */
export const MODELS: Record<UpstreamProtocol, { alias: string; upstream: string }> = {
  messages: { alias: 'via-messages', upstream: 'claude-upstream-1' },
  responses: { alias: 'via-responses', upstream: 'gpt-upstream-1' },
  chat: { alias: 'via-chat', upstream: 'chat-upstream-1' },
  gemini: { alias: 'via-gemini', upstream: 'gemini-upstream-1' },
};

export interface Harness {
  upstream: ScriptedUpstream;
  gateway: BuiltApp;
  url: string;
  anthropic: Anthropic;
  openai: OpenAI;
  close(): Promise<void>;
}

export interface HarnessOptions {
  /** Extra raw config merged over the defaults (providers/models/server keys). */
  config?: (upstreamUrl: string) => Record<string, unknown>;
  apiKey?: string;
  /** The gateway's logger (default: silent). */
  logger?: Logger;
  /** Options of the scripted upstream (e.g. verifyThinking). */
  upstream?: ScriptedUpstreamOptions;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const upstream = await startScriptedUpstream(options.upstream);
  const base = upstream.url;
  const provider = (protocol: UpstreamProtocol) => ({
    protocol,
    base_url: protocol === 'messages' ? base : protocol === 'gemini' ? base + '/v1beta' : base + '/v1',
    api_key: `upstream-key-${protocol}`,
    retry: { attempts: 1 },
    ...(protocol === 'chat' ? { echo_reasoning_content: true } : {}),
  });
  const raw: Record<string, unknown> = {
    server: { host: '127.0.0.1', port: 0, heartbeat_ms: 10_000 },
    log: { level: 'silent' },
    providers: { 'up-messages': provider('messages'), 'up-responses': provider('responses'), 'up-chat': provider('chat'), 'up-gemini': provider('gemini') },
    models: {
      [MODELS.messages.alias]: { provider: 'up-messages', model: MODELS.messages.upstream },
      [MODELS.responses.alias]: { provider: 'up-responses', model: MODELS.responses.upstream },
      [MODELS.chat.alias]: { provider: 'up-chat', model: MODELS.chat.upstream },
      [MODELS.gemini.alias]: { provider: 'up-gemini', model: MODELS.gemini.upstream },
    },
    // Tests that configure no keys run an explicitly open gateway (a config without keys and without
    // auth.open does not load).
    auth: { open: true },
    ...(options.config?.(base) ?? {}),
  };
  const config = resolveConfig(raw, 'test');
  const gateway = buildApp(config, { logger: options.logger ?? pino({ level: 'silent' }) });
  await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  gateway.setReady(true);
  const address = gateway.app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const url = `http://127.0.0.1:${port}`;
  const apiKey = options.apiKey ?? 'caller-key';
  return {
    upstream,
    gateway,
    url,
    anthropic: new Anthropic({ baseURL: url, apiKey, maxRetries: 0 }),
    openai: new OpenAI({ baseURL: url + '/v1', apiKey, maxRetries: 0 }),
    async close() {
      await gateway.app.close();
      await upstream.close();
    },
  };
}
