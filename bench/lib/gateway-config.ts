// The temporary YAML config the gateway is started with: one provider per upstream protocol on the fake
// upstream (plus the same on the paced fake upstream), one model alias per provider. Everything else is
// the default a user gets from `npm start` (log level, metrics), unless a variant says otherwise.
import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import type { Protocol } from '../request-bodies.js';
import { gatewayModel, UPSTREAM_MODEL } from './lanes.js';

export interface GatewayConfigOptions {
  port: number;
  metrics: boolean;
  upstream: string;
  pacedUpstream: string;
  /** undici Pool connections per upstream origin (FLOOR gets the same). */
  connections: number;
  /** Left out: the default users run (`info`, one request log line per request). */
  logLevel?: string;
}

const PROTOCOLS: Protocol[] = ['messages', 'responses', 'chat', 'gemini'];

function baseUrl(origin: string, protocol: Protocol): string {
  // Anthropic: base URL without /v1 (the driver adds /v1/messages); OpenAI and Chat: with /v1; Gemini: /v1beta.
  return protocol === 'messages' ? origin : protocol === 'gemini' ? origin + '/v1beta' : origin + '/v1';
}

export function gatewayConfig(o: GatewayConfigOptions): Record<string, unknown> {
  const providers: Record<string, unknown> = {};
  const models: Record<string, unknown> = {};
  for (const paced of [false, true]) {
    for (const p of PROTOCOLS) {
      const name = `up-${p}${paced ? '-paced' : ''}`;
      providers[name] = {
        protocol: p,
        base_url: baseUrl(paced ? o.pacedUpstream : o.upstream, p),
        api_key: 'sk-bench-upstream',
        connections: o.connections,
        // A failure must show, not be hidden by a retry.
        retry: { attempts: 1 },
      };
      models[gatewayModel(p, paced)] = { provider: name, model: UPSTREAM_MODEL[p] };
    }
  }
  return {
    server: { host: '127.0.0.1', port: o.port },
    auth: { open: true },
    metrics: { enabled: o.metrics },
    ...(o.logLevel === undefined ? {} : { log: { level: o.logLevel } }),
    providers,
    models,
  };
}

export function writeGatewayConfig(file: string, o: GatewayConfigOptions): void {
  writeFileSync(file, `# written by bench/run.ts\n${stringify(gatewayConfig(o))}`);
}
