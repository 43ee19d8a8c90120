import { describe, expect, it } from 'vitest';
import { ALREADY_CHECKED, HTTPS_ONLY, mediaUrlRefusal, mediaUrlRule, refusedMediaUrl, unionOfRules } from '../../../src/ir/media-url.js';
import type { IrRequest } from '../../../src/ir/types.js';

const gcs = mediaUrlRule(['GS://public-assets/', 'http://assets.internal/img/']);

describe('the media-URL rule', () => {
  it.each([
    ['https://example.com/a.png', true],
    ['HTTPS://EXAMPLE.COM/a.png', true],
    ['data:image/png;base64,AAAA', true],
    ['DATA:application/pdf;base64,JVBE', true],
    ['http://example.com/a.png', false],
    ['gs://operator-private-bucket/finance/payroll-2026.pdf', false],
    ['s3://bucket/key', false],
    ['file:///etc/passwd', false],
    ['//example.com/a.png', false],
    ['example.com/a.png', false],
    ['https://', false],
    [' https://example.com/a.png', false],
    ['', false],
  ])('by default: %s → allowed %s', (url, allowed) => {
    expect(mediaUrlRefusal(url, HTTPS_ONLY) === undefined).toBe(allowed);
  });

  it.each([
    ['gs://public-assets/logo.png', true],
    ['GS://public-assets/deep/dir/file.pdf', true],
    ['http://assets.internal/img/a.png', true],
    ['gs://public-assets-evil/x', false],
    ['gs://PUBLIC-ASSETS/x', false],
    ['gs://public-assets', false],
    ['gs://public-assets/../private/x', false],
    ['gs://public-assets/a/..', false],
    ['http://assets.internal/img/%2e%2e/secret', false],
    ['http://assets.internal/img/%2F..%2Fsecret', false],
    ['http://assets.internal/img/..%5csecret', false],
    ['http://assets.internal/img\\..\\secret', false],
    ['http://assets.internal/img/a b', false],
    ['http://assets.internal/img/a\nb', false],
    ['http://assets.internal/other/a.png', false],
    ['gs://other/x', false],
    ['https://example.com/a.png', true],
  ])('with operator prefixes: %s → allowed %s', (url, allowed) => {
    expect(mediaUrlRefusal(url, gcs) === undefined).toBe(allowed);
  });

  it('names the scheme, never the URL, and bounds a caller-chosen scheme', () => {
    expect(mediaUrlRefusal('gs://secret-bucket/x', HTTPS_ONLY)).toBe('media URLs must be https:// (or data:) URLs; got a gs: URL');
    expect(mediaUrlRefusal('gs://secret-bucket/x', gcs)).toBe('media URLs must be https:// (or data:) URLs or under a prefix this gateway allows; got a gs: URL');
    expect(mediaUrlRefusal('relative/path', HTTPS_ONLY)).toMatch(/without a scheme$/);
    expect(mediaUrlRefusal('a'.repeat(40) + '://x', HTTPS_ONLY)).toBe(`media URLs must be https:// (or data:) URLs; got a ${'a'.repeat(16)}…: URL`);
  });

  it('a union holds every prefix once; an empty one is the default rule', () => {
    expect(unionOfRules([gcs, mediaUrlRule(['gs://public-assets/']), HTTPS_ONLY]).prefixes).toEqual(['gs://public-assets/', 'http://assets.internal/img/']);
    expect(unionOfRules([HTTPS_ONLY, mediaUrlRule([])])).toBe(HTTPS_ONLY);
  });

  it('ALREADY_CHECKED lets a stored request be read again (the attempt checks it for its target)', () => {
    expect(mediaUrlRefusal('gs://x/y', ALREADY_CHECKED)).toBeUndefined();
  });

  it('finds the first refused URL in user turns and tool results, and nothing else', () => {
    const req = (parts: IrRequest['turns'][number]['parts']): IrRequest =>
      ({ model: 'm', system: [], turns: [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }, { role: 'user', parts }] }) as unknown as IrRequest;
    expect(refusedMediaUrl(req([{ type: 'image', source: { kind: 'url', url: 'https://a/b.png' } }]), HTTPS_ONLY)).toBeUndefined();
    expect(refusedMediaUrl(req([{ type: 'file', source: { kind: 'text', mediaType: 'text/plain', data: 'gs://not-a-url' } }]), HTTPS_ONLY)).toBeUndefined();
    expect(refusedMediaUrl(req([{ type: 'file', source: { kind: 'url', url: 'gs://b/x.pdf' } }]), HTTPS_ONLY)).toEqual({
      where: 'turns.1.parts.0',
      why: 'media URLs must be https:// (or data:) URLs; got a gs: URL',
    });
    const inResult = req([
      { type: 'text', text: 'x' },
      { type: 'tool-result', callId: 'c', isError: false, kind: 'function', content: [{ type: 'text', text: 't' }, { type: 'image', source: { kind: 'url', url: 'gs://b/x.png' } }] },
    ]);
    expect(refusedMediaUrl(inResult, HTTPS_ONLY)?.where).toBe('turns.1.parts.1.content.1');
    expect(refusedMediaUrl(inResult, mediaUrlRule(['gs://b/']))).toBeUndefined();
  });
});
