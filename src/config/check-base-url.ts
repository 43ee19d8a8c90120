// A base URL that the driver's own path would double, or that misses the path its API lives under, is a
// config error at start-up: otherwise every call is a bare 404 from the upstream, which reads like an
// unknown model. The messages driver adds /v1/messages (an Anthropic base URL has no /v1, as in the
// Anthropic SDK); the responses and chat drivers add /responses and /chat/completions to a base URL
// that ends in the version (as in the OpenAI SDK). Chosen over normalising: the file then says what
// is sent, and a proxy that really serves under …/v1/v1 is not rewritten behind its operator's back.
import { ConfigError } from './config-error.js';
import type { RawProvider } from './schema.js';

export function checkBaseUrl(key: string, p: RawProvider, url: URL): void {
  if (p.platform) return; // each platform builds its own paths (resolve-platform.ts)
  const path = url.pathname.replace(/\/+$/, '');
  if (p.protocol === 'messages' && /\/v1$/.test(path)) {
    throw new ConfigError(`${key}.base_url: ends in /v1, but the messages protocol adds /v1/messages itself (every call would go to …/v1/v1/messages); drop the /v1`);
  }
  if (p.protocol === 'messages' && /\/v1\/messages$/.test(path)) {
    throw new ConfigError(`${key}.base_url: ends in /v1/messages, which the messages protocol adds itself; give the server's root (e.g. https://api.anthropic.com)`);
  }
  if ((p.protocol === 'responses' || p.protocol === 'chat') && /\/(responses|chat\/completions)$/.test(path)) {
    throw new ConfigError(`${key}.base_url: ends in the endpoint, which protocol ${p.protocol} adds itself; end it at the version (e.g. https://api.openai.com/v1)`);
  }
  if ((p.protocol === 'responses' || p.protocol === 'chat') && url.hostname === 'api.openai.com' && path !== '/v1') {
    throw new ConfigError(`${key}.base_url: OpenAI's API is under /v1 (https://api.openai.com/v1)`);
  }
}
