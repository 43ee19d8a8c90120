// The gateway (in process) with Claude on Vertex AI: the metadata fake as Google's token source, the
// Vertex fake in front of the scripted upstream. `via-messages` reaches Claude on Vertex, so the
// conformance matrix runs unchanged; `claude-fallback` tries a Vertex deployment whose project denies
// our credentials (403 PERMISSION_DENIED), then Anthropic's own API (the scripted upstream).
//
// google-auth-library reads process.env itself (main.ts passes nothing to it): GCE_METADATA_HOST names
// the metadata server, as on GKE, and CLOUDSDK_CONFIG points at an empty directory so no gcloud
// credentials of the machine are found first. Both are set for the harness's life and restored on close.
import { mkdtempSync } from 'node:fs';
import type { Logger } from 'pino';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MODELS, startHarness, type Harness } from './gateway-harness.js';
import { startGoogleMetadataFake, type GoogleMetadataFake } from './google-metadata-fake.js';
import { startVertexFake, type VertexFake } from './vertex-fake.js';

export interface VertexHarness extends Harness {
  vertex: VertexFake;
  metadata: GoogleMetadataFake;
}

export const VERTEX_PROJECT = 'proj-1';

export async function startVertexHarness(options: { tokenLifetimeSec?: number; logger?: Logger } = {}): Promise<VertexHarness> {
  const metadata = await startGoogleMetadataFake({ lifetimeSec: options.tokenLifetimeSec });
  const vertex = await startVertexFake({ project: VERTEX_PROJECT, metadata, upstreamUrl: 'http://127.0.0.1:1' });
  const saved = { host: process.env.GCE_METADATA_HOST, sdk: process.env.CLOUDSDK_CONFIG };
  process.env.GCE_METADATA_HOST = metadata.host;
  process.env.CLOUDSDK_CONFIG = mkdtempSync(join(tmpdir(), 'no-gcloud-'));
  const vertexProvider = (project: string, extra: Record<string, unknown> = {}) => ({
    protocol: 'messages',
    platform: 'vertex',
    project,
    region: 'us-east5',
    base_url: vertex.baseUrl,
    retry: { attempts: 1 },
    ...extra,
  });
  const h = await startHarness({
    logger: options.logger,
    config: (url) => {
      vertex.forwardTo = url;
      return {
        providers: {
          'vertex-claude': vertexProvider(VERTEX_PROJECT),
          'vertex-denied': vertexProvider('someone-elses-project', { cooldown: { failures: 1, window_ms: 60_000, cooldown_ms: 60_000, max_cooldown_ms: 60_000 } }),
          'anthropic-direct': { protocol: 'messages', base_url: url, api_key: 'upstream-key-direct', retry: { attempts: 1 } },
        },
        models: {
          [MODELS.messages.alias]: { provider: 'vertex-claude', model: MODELS.messages.upstream },
          'claude-fallback': {
            targets: [
              { provider: 'vertex-denied', model: 'claude-denied@1' },
              { provider: 'anthropic-direct', model: 'claude-direct-1' },
            ],
          },
        },
      };
    },
  });
  return {
    ...h,
    vertex,
    metadata,
    async close() {
      await h.close();
      await vertex.close();
      await metadata.close();
      if (saved.host === undefined) delete process.env.GCE_METADATA_HOST;
      else process.env.GCE_METADATA_HOST = saved.host;
      if (saved.sdk === undefined) delete process.env.CLOUDSDK_CONFIG;
      else process.env.CLOUDSDK_CONFIG = saved.sdk;
    },
  };
}
