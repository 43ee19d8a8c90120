// The media-URL rule (ir/media-url.ts) with an operator allow-list: a provider with
// `media_url_prefixes: [gs://public-assets/]` gets such URIs through every door; a provider without one
// does not (the per-attempt check), whatever door or lane; a URI outside the prefix is refused at the
// door, naming the field. Every refusal happens before anything reaches the scripted upstream.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODELS, startHarness, type Harness } from '../../support/gateway-harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    config: (url) => ({
      providers: {
        'up-messages': { protocol: 'messages', base_url: url, api_key: 'upstream-key-messages', retry: { attempts: 1 } },
        'up-responses': { protocol: 'responses', base_url: url + '/v1', api_key: 'upstream-key-responses', retry: { attempts: 1 } },
        'up-chat': { protocol: 'chat', base_url: url + '/v1', api_key: 'upstream-key-chat', retry: { attempts: 1 } },
        'up-gemini': { protocol: 'gemini', base_url: url + '/v1beta', api_key: 'upstream-key-gemini', retry: { attempts: 1 } },
        'gcs-gemini': { protocol: 'gemini', base_url: url + '/v1beta', api_key: 'upstream-key-gcs', retry: { attempts: 1 }, media_url_prefixes: ['gs://public-assets/'] },
      },
      models: {
        [MODELS.messages.alias]: { provider: 'up-messages', model: MODELS.messages.upstream },
        [MODELS.responses.alias]: { provider: 'up-responses', model: MODELS.responses.upstream },
        [MODELS.chat.alias]: { provider: 'up-chat', model: MODELS.chat.upstream },
        [MODELS.gemini.alias]: { provider: 'up-gemini', model: MODELS.gemini.upstream },
        'gemini-gcs': { provider: 'gcs-gemini', model: 'gemini-gcs-upstream' },
      },
    }),
  });
});
afterAll(async () => {
  await h?.close();
});

const ALLOWED = 'gs://public-assets/report.pdf';
const doc = (url: string): Anthropic.MessageParam => ({
  role: 'user',
  content: [{ type: 'text', text: 'Summarise' }, { type: 'document', source: { type: 'url', url } }],
});
const fileInput = (url: string): OpenAI.Responses.ResponseInput => [
  { role: 'user', content: [{ type: 'input_text', text: 'Summarise' }, { type: 'input_file', file_url: url }] },
];

async function refusal(p: Promise<unknown>): Promise<InstanceType<typeof Anthropic.APIError> | InstanceType<typeof OpenAI.APIError>> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, 'expected a refusal').toBeDefined();
  return err as InstanceType<typeof Anthropic.APIError>;
}

function lastFileUri(): unknown {
  const last = h.upstream.received[h.upstream.received.length - 1]!;
  return (last.body.contents as { parts: { fileData?: { fileUri: string } }[] }[]).flatMap((c) => c.parts).find((p) => p.fileData)?.fileData?.fileUri;
}

describe('media_url_prefixes', () => {
  it('the provider that allows the prefix gets the URI, through the Messages and the Responses door', async () => {
    const before = h.upstream.received.length;
    const msg = await h.anthropic.messages.create({ model: 'gemini-gcs', max_tokens: 64, messages: [doc(ALLOWED)] });
    expect(msg.type).toBe('message');
    expect(h.upstream.received.length).toBe(before + 1);
    expect(lastFileUri()).toBe(ALLOWED);
    const res = await h.openai.responses.create({ model: 'gemini-gcs', input: fileInput(ALLOWED) });
    expect(res.status).toBe('completed');
    expect(lastFileUri()).toBe(ALLOWED);
  });

  it.each([MODELS.messages.alias, MODELS.responses.alias, MODELS.chat.alias, MODELS.gemini.alias])(
    'a provider without the prefix (%s) gets nothing: 400 before the upstream, on both doors',
    async (alias) => {
      const before = h.upstream.received.length;
      const m = await refusal(h.anthropic.messages.create({ model: alias, max_tokens: 64, messages: [doc(ALLOWED)] }));
      expect(m.status).toBe(400);
      expect(m.message).toMatch(/cannot be sent to this model: media URLs must be https:\/\/ \(or data:\) URLs; got a gs: URL/);
      const r = await refusal(h.openai.responses.create({ model: alias, input: fileInput(ALLOWED) }));
      expect(r.status).toBe(400);
      expect(r.message).toMatch(/cannot be sent to this model/);
      expect(h.upstream.received.length).toBe(before);
    },
  );

  it.each(['gs://operator-private-bucket/finance/payroll-2026.pdf', 'gs://public-assets/../private/x.pdf', 'gs://public-assets-other/x.pdf', 'gs://public-assets/%2e%2e/x.pdf'])(
    '%s is outside every prefix: refused at the door, naming the field',
    async (url) => {
      const before = h.upstream.received.length;
      const m = await refusal(h.anthropic.messages.create({ model: 'gemini-gcs', max_tokens: 64, messages: [doc(url)] }));
      expect(m.status).toBe(400);
      const body = (m as InstanceType<typeof Anthropic.APIError>).error as { error: { type: string; message: string } };
      expect(body.error.type).toBe('invalid_request_error');
      expect(body.error.message).toBe('messages.0.content.1.source.url: media URLs must be https:// (or data:) URLs or under a prefix this gateway allows; got a gs: URL');
      const r = (await refusal(h.openai.responses.create({ model: 'gemini-gcs', input: fileInput(url) }))) as InstanceType<typeof OpenAI.APIError>;
      expect(r.status).toBe(400);
      expect(r.param).toBe('input[0].content[1].file_url');
      expect(h.upstream.received.length).toBe(before);
    },
  );

  it('token counting follows the same rule on both doors', async () => {
    const before = h.upstream.received.length;
    const m = await refusal(h.anthropic.messages.countTokens({ model: MODELS.gemini.alias, messages: [doc('gs://operator-bucket/a.pdf')] }));
    expect(m.status).toBe(400);
    expect(m.message).toMatch(/messages\.0\.content\.1\.source\.url/);
    const n = await refusal(h.anthropic.messages.countTokens({ model: MODELS.gemini.alias, messages: [doc(ALLOWED)] }));
    expect(n.status).toBe(400);
    const res = await fetch(h.url + '/v1/responses/input_tokens', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer x' },
      body: JSON.stringify({ model: MODELS.gemini.alias, input: fileInput('gs://operator-bucket/a.pdf') }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { param: string } }).error.param).toBe('input[0].content[1].file_url');
    expect(h.upstream.received.length).toBe(before);
  });
});
