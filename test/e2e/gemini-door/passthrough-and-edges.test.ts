// The Gemini door beyond translation, with @google/genai as the client: pass-through to a Gemini
// deployment (the caller's body up as it came, the target's model in the path, chunks down as they
// arrive, thought signatures kept, refused by the scripted Gemini 3 upstream when dropped);
// countTokens against each upstream's own counter (never a generation); the models list under the
// key's allow-list; the key in x-goog-api-key, ?key= and Bearer (the query key never in a log line);
// Gemini-only fields refused toward another upstream; a mid-stream failure as Google's error chunk;
// and a bad-input battery answered 400 in Google's envelope, never 500.
import { GoogleGenAI, type GenerateContentResponse } from '@google/genai';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildApp, type BuiltApp } from '../../../src/app.js';
import { resolveConfig } from '../../../src/config/load-config.js';
import { startScriptedUpstream, type ReceivedRequest, type ScriptedUpstream } from '../../support/scripted-upstream/index.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const KEY = 'sy-gemini-door-key-1';
const NARROW = 'sy-gemini-door-key-narrow';
let upstream: ScriptedUpstream;
let gateway: BuiltApp;
let url: string;
let genai: GoogleGenAI;
const logLines: string[] = [];

beforeAll(async () => {
  upstream = await startScriptedUpstream();
  const base = upstream.url;
  const config = resolveConfig(
    {
      server: { host: '127.0.0.1', port: 0, heartbeat_ms: 10_000 },
      log: { level: 'info' },
      providers: {
        gem: { protocol: 'gemini', base_url: base + '/v1beta', api_key: 'AIza-gateway-upstream', retry: { attempts: 1 } },
        claude: { protocol: 'messages', base_url: base, api_key: 'sk-ant-gateway', retry: { attempts: 1 } },
        oai: { protocol: 'responses', base_url: base + '/v1', api_key: 'sk-oai-gateway', retry: { attempts: 1 } },
        chat: { protocol: 'chat', base_url: base + '/v1', api_key: 'sk-chat-gateway', retry: { attempts: 1 } },
      },
      models: {
        'gemini-3-pro-preview': { provider: 'gem', model: 'gemini-3-pro-preview' },
        'claude-via-gemini': { provider: 'claude', model: 'claude-sonnet-4-5' },
        'gpt-via-gemini': { provider: 'oai', model: 'gpt-5' },
        'chat-via-gemini': { provider: 'chat', model: 'chat-model-1' },
      },
      auth: { keys: [{ name: 'wide', key: KEY }, { name: 'narrow', key: NARROW, models: ['claude-via-gemini'] }] },
    },
    'test',
  );
  const sink = new Writable({
    write(chunk, _enc, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  gateway = buildApp(config, { logger: pino({ level: 'info' }, sink) });
  await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  gateway.setReady(true);
  const address = gateway.app.server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  genai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: url } });
});
afterAll(async () => {
  await gateway?.app.close();
  await upstream?.close();
});
beforeEach(() => {
  upstream.received.length = 0;
});

const gen = (): ReceivedRequest[] => upstream.received.filter((r) => !/countTokens|count_tokens|input_tokens/.test(r.path));

async function collect(stream: AsyncGenerator<GenerateContentResponse>): Promise<GenerateContentResponse[]> {
  const out: GenerateContentResponse[] = [];
  for await (const chunk of stream) out.push(chunk);
  return out;
}

async function post(path: string, body: unknown, headers: Record<string, string> = { 'x-goog-api-key': KEY }): Promise<{ status: number; json: Json; text: string; headers: Headers }> {
  const res = await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await res.text();
  let json: Json = {};
  try {
    json = JSON.parse(text) as Json;
  } catch {
    // not JSON: the assertion on it will say so
  }
  return { status: res.status, json, text, headers: res.headers };
}

const WEATHER = { name: 'get_weather', parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };

describe('pass-through to a Gemini deployment', () => {
  for (const stream of [false, true]) {
    it(`a tool loop with thinking: the caller's body up unchanged, signatures kept (${stream ? 'streamed' : 'not streamed'})`, async () => {
      upstream.enqueue({
        kind: 'reply',
        blocks: [
          { type: 'reasoning', text: 'Need the tool.', opaque: 'CiQBGemini+native/sig==' },
          { type: 'tool-call', id: 'fc-1', name: 'get_weather', arguments: '{"city":"Oslo"}' },
        ],
        usage: { input: 20, output: 10, reasoning: 4 },
      });
      const request = {
        model: 'gemini-3-pro-preview',
        contents: [{ role: 'user', parts: [{ text: 'Weather in Oslo?' }] }],
        config: { tools: [{ functionDeclarations: [WEATHER] }], thinkingConfig: { includeThoughts: true, thinkingLevel: 'HIGH' as never }, safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT' as never, threshold: 'BLOCK_NONE' as never }] },
      };
      let parts: Json[];
      if (stream) {
        const chunks = await collect(await genai.models.generateContentStream(request));
        parts = chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? []);
        expect(chunks[chunks.length - 1]!.candidates?.[0]?.finishReason).toBe('STOP');
      } else {
        const res = await genai.models.generateContent(request);
        parts = res.candidates![0]!.content!.parts!;
        expect(res.usageMetadata).toMatchObject({ thoughtsTokenCount: 4 });
      }
      const call = parts.find((p) => p.functionCall)!;
      expect(call).toMatchObject({ functionCall: { id: 'fc-1', name: 'get_weather', args: { city: 'Oslo' } }, thoughtSignature: 'CiQBGemini+native/sig==' });
      const sent = gen()[0]!;
      expect(sent.url).toBe(`/v1beta/models/gemini-3-pro-preview:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`);
      expect(sent.headers['x-goog-api-key']).toBe('AIza-gateway-upstream');
      // Nothing translated: Gemini's own safetySettings and thinkingLevel arrive as the SDK sent them.
      expect(sent.body.safetySettings).toEqual([{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }]);
      expect(sent.body.generationConfig.thinkingConfig).toEqual({ includeThoughts: true, thinkingLevel: 'HIGH' });

      const history = [
        ...request.contents,
        { role: 'model', parts: [{ functionCall: call.functionCall, thoughtSignature: call.thoughtSignature }] },
        { role: 'user', parts: [{ functionResponse: { id: 'fc-1', name: 'get_weather', response: { output: '3C' } } }] },
      ];
      upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Oslo: 3C.' }] });
      const second = await genai.models.generateContent({ ...request, contents: history });
      expect(second.text).toBe('Oslo: 3C.');
      expect(gen()[1]!.body.contents[1].parts[0].thoughtSignature).toBe('CiQBGemini+native/sig==');

      // The signature dropped: the scripted Gemini 3 refuses the step, and the caller gets Google's 400.
      const dropped = [history[0], { role: 'model', parts: [{ functionCall: call.functionCall }] }, history[2]];
      const refused = await genai.models.generateContent({ ...request, contents: dropped as never }).then(
        () => undefined,
        (err: { status?: number; message?: string }) => err,
      );
      expect(refused?.status).toBe(400);
      expect(refused?.message).toMatch(/thought_signature/);
    });
  }

  it('the JSON-array stream form relays the upstream chunks inside one array', async () => {
    upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Relayed in an array.' }] });
    const res = await post('/v1beta/models/gemini-3-pro-preview:streamGenerateContent', { contents: [{ role: 'user', parts: [{ text: 'x' }] }] });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const chunks = JSON.parse(res.text) as Json[];
    expect(chunks.map((c) => (c.candidates?.[0]?.content?.parts ?? []).map((p: Json) => p.text ?? '').join('')).join('')).toBe('Relayed in an array.');
    expect(gen()[0]!.url).toBe('/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse');
  });
});

describe('countTokens, never a generation', () => {
  for (const [model, protocol, path] of [
    ['gemini-3-pro-preview', 'gemini', /:countTokens$/],
    ['claude-via-gemini', 'messages', /^\/v1\/messages\/count_tokens$/],
    ['gpt-via-gemini', 'responses', /input_tokens$/],
  ] as const) {
    it(`through a ${protocol} upstream's own counter`, async () => {
      const res = await genai.models.countTokens({ model, contents: 'How many tokens is this sentence?' });
      expect(res.totalTokens).toBeGreaterThan(0);
      expect(upstream.received).toHaveLength(1);
      expect(upstream.received[0]!.path).toMatch(path);
      expect(gen()).toHaveLength(0);
    });
  }

  it('through a Chat upstream (no counter): the estimate', async () => {
    const res = await post('/v1beta/models/chat-via-gemini:countTokens', { contents: [{ role: 'user', parts: [{ text: 'Count me, please.' }] }] });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-switchyard-token-count')).toBe('estimate');
    expect(res.json.totalTokens).toBeGreaterThan(0);
    expect(upstream.received).toHaveLength(0);
  });
});

describe('models list, keys and logs', () => {
  it('lists the models the key may use, and gets one', async () => {
    const wide = [];
    for await (const m of await genai.models.list()) wide.push(m.name);
    expect(wide.sort()).toEqual(['models/chat-via-gemini', 'models/claude-via-gemini', 'models/gemini-3-pro-preview', 'models/gpt-via-gemini']);
    const narrow = new GoogleGenAI({ apiKey: NARROW, httpOptions: { baseUrl: url } });
    const names = [];
    for await (const m of await narrow.models.list()) names.push(m.name);
    expect(names).toEqual(['models/claude-via-gemini']);
    expect((await genai.models.get({ model: 'claude-via-gemini' })).name).toBe('models/claude-via-gemini');
    const hidden = await narrow.models.get({ model: 'gpt-via-gemini' }).then(
      () => undefined,
      (err: { status?: number }) => err,
    );
    expect(hidden?.status).toBe(404);
  });

  it('takes the key as ?key= and as Bearer; the query key is never logged', async () => {
    upstream.setDefault(() => ({ kind: 'reply', blocks: [{ type: 'text', text: 'ok' }] }));
    const body = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] };
    expect((await post(`/v1beta/models/claude-via-gemini:generateContent?key=${KEY}`, body, {})).status).toBe(200);
    expect((await post('/v1/models/claude-via-gemini:generateContent', body, { authorization: `Bearer ${KEY}` })).status).toBe(200);
    const missing = await post('/v1beta/models/claude-via-gemini:generateContent', body, {});
    expect(missing.status).toBe(401);
    expect(missing.json.error).toMatchObject({ code: 401, status: 'UNAUTHENTICATED' });
    const wrong = await post('/v1beta/models/claude-via-gemini:generateContent?key=nope-not-a-key', body, {});
    expect(wrong.status).toBe(401);
    const forbidden = await post('/v1beta/models/gpt-via-gemini:generateContent', body, { 'x-goog-api-key': NARROW });
    expect(forbidden.status).toBe(404);
    expect(forbidden.json.error.status).toBe('NOT_FOUND');
    await new Promise((r) => setTimeout(r, 50));
    const logs = logLines.join('');
    expect(logs).toContain('"frontDoor":"gemini"');
    expect(logs).not.toContain(KEY);
    expect(logs).not.toContain('nope-not-a-key');
  });
});

describe('refusals in Google\'s envelope', () => {
  it('Gemini-only fields toward another upstream are a 400 naming them', async () => {
    const res = await post('/v1beta/models/claude-via-gemini:generateContent', {
      contents: [{ role: 'user', parts: [{ text: 'x' }] }],
      generationConfig: { candidateCount: 2 },
      tools: [{ googleSearch: {} }],
    });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    expect(res.json.error.message).toMatch(/candidateCount, tools\[0\]\.googleSearch: only supported when the model is served by a Gemini upstream/);
    expect(gen()).toHaveLength(0);
  });

  it('an upstream failure mid-stream is Google\'s error chunk, then the end', async () => {
    upstream.enqueue({ kind: 'fail-mid-stream', blocks: [{ type: 'text', text: 'partial answer' }], message: 'upstream fell over' });
    const stream = await genai.models.generateContentStream({ model: 'claude-via-gemini', contents: 'x' });
    const seen: string[] = [];
    const err = await (async () => {
      for await (const c of stream) seen.push(c.text ?? '');
    })().then(
      () => undefined,
      (e: { status?: number; message?: string }) => e,
    );
    expect(seen.join('')).toContain('partial');
    expect(err?.message).toMatch(/upstream fell over/);
    const raw = await (async () => {
      upstream.enqueue({ kind: 'fail-mid-stream', blocks: [{ type: 'text', text: 'partial' }], message: 'again' });
      return post('/v1beta/models/claude-via-gemini:streamGenerateContent', { contents: [{ role: 'user', parts: [{ text: 'x' }] }] });
    })();
    const chunks = JSON.parse(raw.text) as Json[];
    expect(chunks[chunks.length - 1]!.error).toMatchObject({ status: expect.any(String), message: expect.stringContaining('again') });
  });

  const BAD: [string, string, unknown][] = [
    ['malformed contents', 'claude-via-gemini:generateContent', { contents: 'hello' }],
    ['empty parts', 'claude-via-gemini:generateContent', { contents: [{ role: 'user', parts: [] }] }],
    ['a functionResponse without its call', 'claude-via-gemini:generateContent', { contents: [{ role: 'user', parts: [{ functionResponse: { name: 'f', response: {} } }] }] }],
    ['an unknown part kind', 'claude-via-gemini:generateContent', { contents: [{ role: 'user', parts: [{ telepathy: { x: 1 } }] }] }],
    ['a bad role', 'claude-via-gemini:streamGenerateContent?alt=sse', { contents: [{ role: 'assistant', parts: [{ text: 'x' }] }] }],
    ['deeply nested', 'claude-via-gemini:generateContent', '{"contents":' + '['.repeat(5000) + ']'.repeat(5000) + '}'],
    ['not JSON', 'claude-via-gemini:generateContent', '{"contents": [ nope'],
    ['a model segment with path tricks', '..%2F..%2Fetc:generateContent', { contents: [{ role: 'user', parts: [{ text: 'x' }] }] }],
    ['a model with a slash', 'a%2Fb:countTokens', { contents: [{ role: 'user', parts: [{ text: 'x' }] }] }],
    ['countTokens with a bad body', 'claude-via-gemini:countTokens', { contents: [{ parts: 'x' }] }],
  ];
  for (const [what, target, body] of BAD) {
    it(`${what}: 400 INVALID_ARGUMENT, nothing sent upstream`, async () => {
      const res = await post('/v1beta/models/' + target, body);
      expect(res.status).toBe(400);
      expect(res.json.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT', message: expect.any(String) });
      expect(upstream.received).toHaveLength(0);
    });
  }

  it('an unknown method and an unknown model are 404 NOT_FOUND', async () => {
    const method = await post('/v1beta/models/claude-via-gemini:embedContent', { content: {} });
    expect(method.status).toBe(404);
    expect(method.json.error.status).toBe('NOT_FOUND');
    const model = await post('/v1beta/models/no-such-model:generateContent', { contents: [{ role: 'user', parts: [{ text: 'x' }] }] });
    expect(model.status).toBe(404);
    expect(model.json.error.status).toBe('NOT_FOUND');
  });

  it('a huge body is 413 in Google\'s envelope', async () => {
    const res = await post('/v1beta/models/claude-via-gemini:generateContent', { contents: [{ role: 'user', parts: [{ text: 'x'.repeat(40 * 1024 * 1024) }] }] });
    expect(res.status).toBe(413);
    expect(res.json.error).toMatchObject({ code: 413 });
  });
});
