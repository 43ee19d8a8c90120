// The embedded default configuration used when no file is given: the in-process demo provider
// always, plus Anthropic and OpenAI when their keys are in the environment. It has no keys, so it is
// open — said explicitly, and only on a loopback host: with SWITCHYARD_HOST set to another address it
// does not load (a gateway reachable by others needs a config file with auth.keys).
import type { RawConfig } from './schema.js';

export function defaultConfig(env: Record<string, string | undefined>): RawConfig {
  const providers: RawConfig['providers'] = { demo: { protocol: 'demo' } };
  const models: RawConfig['models'] = { demo: { provider: 'demo' }, 'demo-*': { provider: 'demo' } };
  if (env.ANTHROPIC_API_KEY) {
    providers.anthropic = {
      protocol: 'messages',
      base_url: env.ANTHROPIC_BASE_URL || 'https://api.anthropic.com',
      api_key: env.ANTHROPIC_API_KEY,
    };
    models['claude-*'] = { provider: 'anthropic' };
  }
  if (env.OPENAI_API_KEY) {
    providers.openai = {
      protocol: 'responses',
      base_url: env.OPENAI_BASE_URL || 'https://api.openai.com/v1',
      api_key: env.OPENAI_API_KEY,
    };
    models['gpt-*'] = { provider: 'openai' };
    models['o[0-9]*'] = { provider: 'openai' };
    models['codex-*'] = { provider: 'openai' };
  }
  // The address itself comes from SWITCHYARD_HOST / SWITCHYARD_PORT or the defaults (listen-overrides.ts).
  const host = env.SWITCHYARD_HOST || '127.0.0.1';
  return {
    // The status page, for the demo on this machine only: not when the gateway listens beyond loopback.
    status: { enabled: host === '127.0.0.1' || host === '::1' || host === 'localhost' },
    ...(isLoopback(host) ? { auth: { open: true } } : {}),
    providers,
    models,
  };
}

/**
 * What the embedded default leaves out, and why, for the start-up log: a vendor without its key is not
 * routed at all (its names answer 404 like any unknown model), rather than routed and refused upstream.
 */
export function embeddedDefaultNotes(env: Record<string, string | undefined>): string[] {
  const notes: string[] = [];
  if (!env.ANTHROPIC_API_KEY) notes.push('ANTHROPIC_API_KEY is not set: claude-* is not routed (set it and restart)');
  if (!env.OPENAI_API_KEY) notes.push('OPENAI_API_KEY is not set: gpt-*, o<digit>*, codex-* are not routed (set it and restart)');
  return notes;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}
