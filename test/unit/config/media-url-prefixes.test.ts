// `providers.<name>.media_url_prefixes`: strict shape, refused when it could be escaped or says nothing,
// and the door rule as the union of every provider's.
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/load-config.js';

function config(prefixes: unknown, other?: unknown) {
  return resolveConfig(
    {
      auth: { open: true },
      providers: {
        vertex: { protocol: 'gemini', base_url: 'https://example.test/v1beta', api_key: 'k', media_url_prefixes: prefixes },
        ...(other === undefined ? {} : { assets: { protocol: 'chat', base_url: 'https://example.test/v1', api_key: 'k', media_url_prefixes: other } }),
      },
      models: { m: { provider: 'vertex' } },
    },
    'test',
  );
}

describe('media_url_prefixes', () => {
  it('absent: https: and data: only, on the provider and at the doors', () => {
    const cfg = resolveConfig({ auth: { open: true }, providers: { p: { protocol: 'demo' } }, models: { m: { provider: 'p' } } }, 'test');
    expect(cfg.providers.get('p')!.mediaUrls.prefixes).toEqual([]);
    expect(cfg.mediaUrls.prefixes).toEqual([]);
  });

  it('a provider keeps its own; the doors take the union (schemes lower-cased)', () => {
    const cfg = config(['GS://public-assets/'], ['http://assets.internal/', 'gs://public-assets/']);
    expect(cfg.providers.get('vertex')!.mediaUrls.prefixes).toEqual(['gs://public-assets/']);
    expect(cfg.providers.get('assets')!.mediaUrls.prefixes).toEqual(['http://assets.internal/', 'gs://public-assets/']);
    expect(cfg.mediaUrls.prefixes).toEqual(['gs://public-assets/', 'http://assets.internal/']);
  });

  it.each([
    ['gs://bucket', 'providers.vertex.media_url_prefixes.0'],
    ['bucket/', 'providers.vertex.media_url_prefixes.0'],
    ['gs://my bucket/', 'providers.vertex.media_url_prefixes.0'],
    ['gs:/bucket/', 'providers.vertex.media_url_prefixes.0'],
  ])('a malformed prefix %j is refused naming %s', (prefix, key) => {
    expect(() => config([prefix])).toThrow(new RegExp('^' + key.replace(/\./g, '\\.') + ': '));
  });

  it('a prefix a server could normalise away, or https:// (always allowed), is refused', () => {
    expect(() => config(['gs://a/../b/'])).toThrow(/media_url_prefixes\.0: may not contain "\.\." or percent escapes/);
    expect(() => config(['gs://a/', 'http://h/%2e/'])).toThrow(/media_url_prefixes\.1: may not contain/);
    expect(() => config(['https://cdn.example.com/'])).toThrow(/media_url_prefixes\.0: https:\/\/ URLs are always allowed/);
  });

  it('is a list (a misspelt key or a string is refused by the strict schema)', () => {
    expect(() => config('gs://bucket/')).toThrow(/^providers\.vertex\.media_url_prefixes: /);
    expect(() =>
      resolveConfig({ auth: { open: true }, providers: { p: { protocol: 'demo', media_url_prefix: ['gs://b/'] } }, models: { m: { provider: 'p' } } }, 'test'),
    ).toThrow(/media_url_prefix/);
  });
});
