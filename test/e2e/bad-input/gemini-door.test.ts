// Bad requests at the Gemini door, on all four lanes (pass-through to a Gemini upstream, translated to
// Messages, Responses and Chat Completions) and on every method (generateContent, both stream forms,
// countTokens): each is a 400 in Google's envelope `{error:{code,message,status}}` with status
// INVALID_ARGUMENT and the field named in the message the way Google spells it (`contents[0].parts[1]`),
// never a 500 or a hang, never an upstream key in the answer, and the upstream receives nothing. Then
// what comes before the body: a bad key on every Gemini route (x-goog-api-key, ?key=, Bearer), an
// unknown model, a wrong method, a model segment with path tricks, and bodies that are not JSON, too
// deep or too large.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../../src/http/json-body.js';
import { MODELS, startHarness, type Harness, type UpstreamProtocol } from '../../support/gateway-harness.js';

const KEY = 'sy-gemini-battery-key';
/** A key allowed one model only. */
const NARROW = 'sy-gemini-battery-narrow';
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ config: () => ({ auth: { keys: [{ name: 'battery', key: KEY }, { name: 'narrow', key: NARROW, models: [MODELS.chat.alias] }] } }) });
});
afterAll(async () => {
  await h?.close();
});

type Body = Record<string, unknown>;
const user = (...parts: unknown[]): Body => ({ role: 'user', parts });
const model = (...parts: unknown[]): Body => ({ role: 'model', parts });
const call = (name: string, id?: string): Body => ({ functionCall: { name, args: {}, ...(id !== undefined ? { id } : {}) } });
const answer = (name: string, id?: string): Body => ({ functionResponse: { name, response: { output: 'ok' }, ...(id !== undefined ? { id } : {}) } });
const decl = (name: string, extra: Body = {}): Body => ({ name, parametersJsonSchema: { type: 'object', properties: {} }, ...extra });
const hi = user({ text: 'hi' });

/** [what, the field the message must name, fields over a valid body (undefined removes one)]. */
const CASES: [string, string, Body][] = [
  // contents
  ['no contents at all', 'contents', { contents: undefined }],
  ['contents a string', 'contents', { contents: 'hello' }],
  ['an empty contents list', 'contents', { contents: [] }],
  ['a content that is a string', 'contents[0]', { contents: ['hi'] }],
  ['a content without parts', 'contents[0].parts', { contents: [{ role: 'user' }] }],
  ['parts a string', 'contents[0].parts', { contents: [{ role: 'user', parts: 'hi' }] }],
  ['empty parts', 'contents[0].parts', { contents: [user()] }],
  ['role assistant', 'contents[0].role', { contents: [{ role: 'assistant', parts: [{ text: 'x' }] }] }],
  ['role system', 'contents[0].role', { contents: [{ role: 'system', parts: [{ text: 'x' }] }] }],
  ['role a number', 'contents[0].role', { contents: [{ role: 1, parts: [{ text: 'x' }] }] }],
  ['a part that is a string', 'contents[0].parts[0]', { contents: [user('hi')] }],
  ['text a number', 'contents[0].parts[0].text', { contents: [user({ text: 7 })] }],
  ['a part with two data fields', 'contents[0].parts[0]', { contents: [user({ text: 'x', inlineData: { mimeType: 'image/png', data: 'iVBORw==' } })] }],
  ['a part with no data field', 'contents[0].parts[0]', { contents: [user({ thought: true })] }],
  ['an unknown part kind', 'contents[0].parts[0]', { contents: [user({ telepathy: { x: 1 } })] }],
  ['an executableCode part', 'contents[0].parts[0]', { contents: [user({ executableCode: { language: 'PYTHON', code: 'print(1)' } })] }],
  ['thought a string', 'contents[0].parts[0].thought', { contents: [user({ text: 'x', thought: 'yes' })] }],
  ['thoughtSignature a number', 'contents[1].parts[0].thoughtSignature', { contents: [hi, model({ text: 'x', thoughtSignature: 5 }), user({ text: 'y' })] }],
  // media
  ['inlineData without mimeType', 'contents[0].parts[0].inlineData.mimeType', { contents: [user({ inlineData: { data: 'iVBORw==' } })] }],
  ['inlineData with an empty mimeType', 'contents[0].parts[0].inlineData.mimeType', { contents: [user({ inlineData: { mimeType: '', data: 'iVBORw==' } })] }],
  ['inlineData data that is not base64', 'contents[0].parts[0].inlineData.data', { contents: [user({ inlineData: { mimeType: 'image/png', data: 'not base64!' } })] }],
  ['inlineData data a number', 'contents[0].parts[0].inlineData.data', { contents: [user({ inlineData: { mimeType: 'image/png', data: 12 } })] }],
  ['fileData without fileUri', 'contents[0].parts[0].fileData.fileUri', { contents: [user({ fileData: { mimeType: 'application/pdf' } })] }],
  ['an http:// fileUri', 'contents[0].parts[0].fileData.fileUri', { contents: [user({ fileData: { mimeType: 'image/png', fileUri: 'http://169.254.169.254/latest/meta-data' } })] }],
  ['a file:// fileUri', 'contents[0].parts[0].fileData.fileUri', { contents: [user({ fileData: { mimeType: 'text/plain', fileUri: 'file:///etc/passwd' } })] }],
  ['a gs:// fileUri', 'contents[0].parts[0].fileData.fileUri', { contents: [user({ fileData: { mimeType: 'image/png', fileUri: 'gs://operator-bucket/a.png' } })] }],
  // function calling in the history
  ['a functionCall in a user turn', 'contents[0].parts[0]', { contents: [user(call('look'))] }],
  ['a functionCall without a name', 'contents[1].parts[0].functionCall.name', { contents: [hi, model({ functionCall: { args: {} } })] }],
  ['functionCall args a list', 'contents[1].parts[0].functionCall.args', { contents: [hi, model({ functionCall: { name: 'look', args: [1] } })] }],
  ['a functionResponse with no call before it', 'contents[0].parts[0].functionResponse', { contents: [user(answer('look'))] }],
  ['a functionResponse for another function', 'contents[2].parts[0].functionResponse', { contents: [hi, model(call('look')), user(answer('other'))] }],
  ['a functionResponse for another call id', 'contents[2].parts[1].functionResponse', { contents: [hi, model(call('look', 'c1')), user(answer('look', 'c1'), answer('look', 'c2'))] }],
  ['a call left unanswered before the next user text', 'contents[1].parts[0].functionCall', { contents: [hi, model(call('look')), user({ text: 'and?' })] }],
  ['one of two calls unanswered', 'contents[1].parts[1].functionCall', { contents: [hi, model(call('look', 'c1'), call('look', 'c2')), user(answer('look', 'c1'))] }],
  ['a functionResponse without a name', 'contents[2].parts[0].functionResponse.name', { contents: [hi, model(call('look')), user({ functionResponse: { response: {} } })] }],
  ['functionResponse response a string', 'contents[2].parts[0].functionResponse.response', { contents: [hi, model(call('look')), user({ functionResponse: { name: 'look', response: 'ok' } })] }],
  ['inlineData in a model turn', 'contents[1].parts[0]', { contents: [hi, model({ inlineData: { mimeType: 'image/png', data: 'iVBORw==' } }), user({ text: 'y' })] }],
  // systemInstruction
  ['systemInstruction a string', 'systemInstruction', { systemInstruction: 'be brief' }],
  ['systemInstruction parts not a list', 'systemInstruction.parts', { systemInstruction: { parts: { text: 'x' } } }],
  ['an image in systemInstruction', 'systemInstruction.parts[0]', { systemInstruction: { parts: [{ inlineData: { mimeType: 'image/png', data: 'iVBORw==' } }] } }],
  // tools
  ['tools an object', 'tools', { tools: { functionDeclarations: [] } }],
  ['functionDeclarations an object', 'tools[0].functionDeclarations', { tools: [{ functionDeclarations: decl('look') }] }],
  ['a function name with a space', 'tools[0].functionDeclarations[0].name', { tools: [{ functionDeclarations: [decl('get weather')] }] }],
  ['an empty function name', 'tools[0].functionDeclarations[0].name', { tools: [{ functionDeclarations: [decl('')] }] }],
  ['a function name of 129 characters', 'tools[0].functionDeclarations[0].name', { tools: [{ functionDeclarations: [decl('n'.repeat(129))] }] }],
  ['a function name starting with a digit', 'tools[0].functionDeclarations[0].name', { tools: [{ functionDeclarations: [decl('1look')] }] }],
  ['duplicate function names across tools', 'tools[1].functionDeclarations[0].name', { tools: [{ functionDeclarations: [decl('look')] }, { functionDeclarations: [decl('look')] }] }],
  ['parameters and parametersJsonSchema both', 'tools[0].functionDeclarations[0]', { tools: [{ functionDeclarations: [decl('look', { parameters: { type: 'OBJECT' } })] }] }],
  ['parameters a string', 'tools[0].functionDeclarations[0].parameters', { tools: [{ functionDeclarations: [{ name: 'look', parameters: 'object' }] }] }],
  ['a description that is a number', 'tools[0].functionDeclarations[0].description', { tools: [{ functionDeclarations: [decl('look', { description: 3 })] }] }],
  ['an unknown calling mode', 'toolConfig.functionCallingConfig.mode', { tools: [{ functionDeclarations: [decl('look')] }], toolConfig: { functionCallingConfig: { mode: 'SOMETIMES' } } }],
  [
    'allowedFunctionNames naming no declared function',
    'toolConfig.functionCallingConfig.allowedFunctionNames[0]',
    { tools: [{ functionDeclarations: [decl('look')] }], toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['other'] } } },
  ],
  ['allowedFunctionNames a string', 'toolConfig.functionCallingConfig.allowedFunctionNames', { tools: [{ functionDeclarations: [decl('look')] }], toolConfig: { functionCallingConfig: { allowedFunctionNames: 'look' } } }],
  // generationConfig
  ['generationConfig a string', 'generationConfig', { generationConfig: 'fast' }],
  ['temperature a string', 'generationConfig.temperature', { generationConfig: { temperature: 'hot' } }],
  ['temperature above 2', 'generationConfig.temperature', { generationConfig: { temperature: 2.5 } }],
  ['temperature below 0', 'generationConfig.temperature', { generationConfig: { temperature: -1 } }],
  ['topP above 1', 'generationConfig.topP', { generationConfig: { topP: 1.5 } }],
  ['topK 0', 'generationConfig.topK', { generationConfig: { topK: 0 } }],
  ['topK a decimal', 'generationConfig.topK', { generationConfig: { topK: 2.5 } }],
  ['maxOutputTokens 0', 'generationConfig.maxOutputTokens', { generationConfig: { maxOutputTokens: 0 } }],
  ['maxOutputTokens a decimal', 'generationConfig.maxOutputTokens', { generationConfig: { maxOutputTokens: 10.5 } }],
  ['maxOutputTokens a string', 'generationConfig.maxOutputTokens', { generationConfig: { maxOutputTokens: '100' } }],
  ['candidateCount 0', 'generationConfig.candidateCount', { generationConfig: { candidateCount: 0 } }],
  ['stopSequences a string', 'generationConfig.stopSequences', { generationConfig: { stopSequences: 'END' } }],
  ['six stop sequences', 'generationConfig.stopSequences', { generationConfig: { stopSequences: ['a', 'b', 'c', 'd', 'e', 'f'] } }],
  ['a stop sequence that is a number', 'generationConfig.stopSequences[0]', { generationConfig: { stopSequences: [1] } }],
  ['presencePenalty a string', 'generationConfig.presencePenalty', { generationConfig: { presencePenalty: 'high' } }],
  ['frequencyPenalty below -2', 'generationConfig.frequencyPenalty', { generationConfig: { frequencyPenalty: -3 } }],
  ['presencePenalty 2 or above', 'generationConfig.presencePenalty', { generationConfig: { presencePenalty: 2 } }],
  ['seed a decimal', 'generationConfig.seed', { generationConfig: { seed: 1.5 } }],
  ['a response schema without the JSON mime type', 'generationConfig.responseMimeType', { generationConfig: { responseSchema: { type: 'OBJECT' } } }],
  ['responseSchema and responseJsonSchema both', 'generationConfig.responseSchema', { generationConfig: { responseMimeType: 'application/json', responseSchema: { type: 'OBJECT' }, responseJsonSchema: { type: 'object' } } }],
  ['responseSchema a string', 'generationConfig.responseSchema', { generationConfig: { responseMimeType: 'application/json', responseSchema: 'OBJECT' } }],
  ['responseMimeType a number', 'generationConfig.responseMimeType', { generationConfig: { responseMimeType: 1 } }],
  ['an unknown thinkingLevel', 'generationConfig.thinkingConfig.thinkingLevel', { generationConfig: { thinkingConfig: { thinkingLevel: 'EXTREME' } } }],
  ['thinkingBudget below -1', 'generationConfig.thinkingConfig.thinkingBudget', { generationConfig: { thinkingConfig: { thinkingBudget: -2 } } }],
  ['thinkingBudget and thinkingLevel both', 'generationConfig.thinkingConfig', { generationConfig: { thinkingConfig: { thinkingBudget: 1024, thinkingLevel: 'LOW' } } }],
  ['includeThoughts a string', 'generationConfig.thinkingConfig.includeThoughts', { generationConfig: { thinkingConfig: { includeThoughts: 'yes' } } }],
  // the rest of the body
  ['safetySettings an object', 'safetySettings', { safetySettings: { category: 'HARM_CATEGORY_HARASSMENT' } }],
  ['cachedContent a number', 'cachedContent', { cachedContent: 42 }],
  ['model in the body a number', 'model', { model: 42 }],
];

/** Fields only a Gemini upstream can honour: refused naming them on a translated lane, sent as they
 * are on the pass-through one (dropping them would change the answer). */
const GEMINI_ONLY: [string, string, Body][] = [
  ['candidateCount 2', 'generationConfig.candidateCount', { generationConfig: { candidateCount: 2 } }],
  ['an enum response mime type', 'generationConfig.responseMimeType', { generationConfig: { responseMimeType: 'text/x.enum', responseSchema: { type: 'STRING', enum: ['a', 'b'] } } }],
  ['responseLogprobs', 'generationConfig.responseLogprobs', { generationConfig: { responseLogprobs: true, logprobs: 3 } }],
  ['audio output', 'generationConfig.responseModalities', { generationConfig: { responseModalities: ['AUDIO'] } }],
  ['googleSearch', 'tools[0].googleSearch', { tools: [{ googleSearch: {} }] }],
  ['codeExecution', 'tools[0].codeExecution', { tools: [{ codeExecution: {} }] }],
  ['urlContext', 'tools[0].urlContext', { tools: [{ urlContext: {} }] }],
  ['cachedContent', 'cachedContent', { cachedContent: 'cachedContents/abc123' }],
];

const LANES: UpstreamProtocol[] = ['gemini', 'messages', 'responses', 'chat'];
const TRANSLATED: UpstreamProtocol[] = ['messages', 'responses', 'chat'];
type Method = 'generateContent' | 'streamGenerateContent?alt=sse' | 'streamGenerateContent' | 'countTokens';
const METHODS: Method[] = ['generateContent', 'streamGenerateContent?alt=sse', 'streamGenerateContent', 'countTokens'];

/** Every case on every lane through generateContent, and on the Messages lane through the other methods. */
const ROWS = [
  ...LANES.flatMap((lane) => CASES.map(([what, field, over]) => [lane, 'generateContent' as Method, what, field, over] as const)),
  ...METHODS.slice(1).flatMap((method) => CASES.map(([what, field, over]) => ['messages' as UpstreamProtocol, method, what, field, over] as const)),
];

interface Answer {
  status: number;
  text: string;
  headers: Headers;
}

async function post(path: string, body: string | Body, headers: Record<string, string> = { 'x-goog-api-key': KEY }): Promise<Answer> {
  const res = await fetch(h.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

async function send(method: string, path: string, body?: Body, headers: Record<string, string> = { 'x-goog-api-key': KEY }): Promise<Answer> {
  if (body !== undefined) return post(path, body, headers);
  const res = await fetch(h.url + path, { method, headers, signal: AbortSignal.timeout(10_000) });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

/** countTokens takes the generation request inside `generateContentRequest` (its own `contents` is the short form). */
function bodyFor(method: Method, lane: UpstreamProtocol, over: Body): Body {
  const body: Body = { contents: [hi], ...over };
  for (const k of Object.keys(body)) if (body[k] === undefined) delete body[k];
  return method === 'countTokens' ? { generateContentRequest: { model: `models/${MODELS[lane].alias}`, ...body } } : body;
}

interface GoogleError {
  code: number;
  message: string;
  status: string;
}

/** Google's envelope, and nothing of the gateway's own keys or the upstreams' in it. */
function googleError(a: Answer, code: number, status: string): GoogleError {
  expect(a.status, a.text).toBe(code);
  expect(a.headers.get('content-type')).toMatch(/^application\/json/);
  const body = JSON.parse(a.text) as { error: GoogleError };
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error).toMatchObject({ code, status, message: expect.any(String) });
  expect(a.text).not.toContain('upstream-key-');
  return body.error;
}

describe('the Gemini door refuses a malformed body in Google\'s envelope, naming the field, before any upstream call', () => {
  it.each(ROWS)('%s lane, %s: %s → names %s', async (lane, method, _what, field, over) => {
    const before = h.upstream.received.length;
    const a = await post(`/v1beta/models/${MODELS[lane].alias}:${method}`, bodyFor(method, lane, over));
    const e = googleError(a, 400, 'INVALID_ARGUMENT');
    expect(e.message).toContain(field);
    expect(e.message.length).toBeGreaterThan(field.length + 8);
    expect(h.upstream.received).toHaveLength(before);
  });

  it.each(TRANSLATED.flatMap((lane) => GEMINI_ONLY.map(([what, field, over]) => [lane, what, field, over] as const)))(
    '%s lane: %s is refused naming %s, never silently dropped',
    async (lane, _what, field, over) => {
      const before = h.upstream.received.length;
      const a = await post(`/v1beta/models/${MODELS[lane].alias}:generateContent`, bodyFor('generateContent', lane, over));
      const e = googleError(a, 400, 'INVALID_ARGUMENT');
      expect(e.message).toContain(field);
      expect(e.message).toContain('only supported when the model is served by a Gemini upstream');
      expect(h.upstream.received).toHaveLength(before);
    },
  );

  it.each(GEMINI_ONLY)('gemini lane: %s goes up as sent', async (_what, _field, over) => {
    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'ok' }] });
    const a = await post(`/v1beta/models/${MODELS.gemini.alias}:generateContent`, bodyFor('generateContent', 'gemini', over));
    expect(a.status, a.text).toBe(200);
    const seen = h.upstream.received[h.upstream.received.length - 1]!.body as Body;
    for (const key of Object.keys(over)) expect(seen[key]).toEqual(over[key]);
  });

  it('a body that is not JSON, a JSON array, a JSON string, an empty body and one nested 10,000 deep: 400 in Google\'s envelope', async () => {
    const before = h.upstream.received.length;
    const deep = `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"x":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
    for (const method of METHODS) {
      for (const body of ['{"contents":', '[1,2]', '"hello"', 'null', deep]) {
        const e = googleError(await post(`/v1beta/models/${MODELS.gemini.alias}:${method}`, body), 400, 'INVALID_ARGUMENT');
        expect(e.message.length).toBeGreaterThan(10);
      }
      const empty = await fetch(h.url + `/v1beta/models/${MODELS.messages.alias}:${method}`, { method: 'POST', headers: { 'x-goog-api-key': KEY, 'content-type': 'application/json' } });
      googleError({ status: empty.status, text: await empty.text(), headers: empty.headers }, 400, 'INVALID_ARGUMENT');
    }
    const nested = googleError(await post(`/v1beta/models/${MODELS.messages.alias}:generateContent`, `{"contents":${'['.repeat(10_000)}${']'.repeat(10_000)}}`), 400, 'INVALID_ARGUMENT');
    expect(nested.message).toContain(`nested deeper than ${MAX_JSON_DEPTH} levels`);
    expect(h.upstream.received).toHaveLength(before);
  });

  it('a body sent as text/plain or form data is refused in Google\'s envelope', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const e = googleError(await post(`/v1beta/models/${MODELS.messages.alias}:generateContent`, 'contents=hi', { 'x-goog-api-key': KEY, 'content-type': type }), 400, 'INVALID_ARGUMENT');
      expect(e.message).toMatch(/JSON|content-type/);
    }
  });

  it('a body over the size limit is 413 in Google\'s envelope on every method, and the connection answers again', async () => {
    const big = JSON.stringify({ contents: [user({ text: 'x'.repeat(40 * 1024 * 1024) })] });
    for (const method of METHODS) {
      const e = googleError(await post(`/v1beta/models/${MODELS.messages.alias}:${method}`, big), 413, 'INVALID_ARGUMENT');
      expect(e.message).toMatch(/larger than/);
    }
  });

  it('unknown top-level keys and unknown generationConfig keys are dropped with a warning on a translated lane, not forwarded', async () => {
    h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'ok' }] });
    const a = await post(`/v1beta/models/${MODELS.messages.alias}:generateContent`, {
      contents: [hi],
      labels: { team: 'x' },
      generationConfig: { mediaResolution: 'MEDIA_RESOLUTION_LOW', enableEnhancedCivicAnswers: true, junk: 'y'.repeat(100_000) },
    });
    expect(a.status, a.text).toBe(200);
    // The header names warning kinds (bounded: they are metric labels too); the log line has the keys.
    const warnings = a.headers.get('x-switchyard-warnings') ?? '';
    expect(warnings).toMatch(/^4; /);
    expect(warnings).toContain('extras');
    expect(warnings).toContain('generationConfig');
    const seen = h.upstream.received[h.upstream.received.length - 1]!.body as Body;
    expect(JSON.stringify(seen)).not.toContain('mediaResolution');
    expect(JSON.stringify(seen)).not.toContain('yyyy');
  });

  it('the same door still serves a valid request on each lane and method (the battery is not refusing everything)', async () => {
    for (const lane of LANES) {
      for (const method of METHODS) {
        if (method !== 'countTokens') h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'ok' }] });
        const a = await post(`/v1beta/models/${MODELS[lane].alias}:${method}`, bodyFor(method, lane, {}));
        expect(a.status, `${lane} ${method}: ${a.text}`).toBe(200);
      }
    }
  });
});

describe('before the body: keys, models and methods', () => {
  const alias = MODELS.messages.alias;
  const ROUTES: [string, string, Body | undefined][] = [];
  for (const v of ['/v1beta', '/v1']) {
    for (const m of ['generateContent', 'streamGenerateContent?alt=sse', 'streamGenerateContent', 'countTokens']) {
      ROUTES.push(['POST', `${v}/models/${alias}:${m}`, { contents: [hi] }]);
    }
  }
  ROUTES.push(['GET', '/v1beta/models', undefined], ['GET', `/v1beta/models/${alias}`, undefined]);

  const withQuery = (path: string, key: string): string => path + (path.includes('?') ? '&' : '?') + 'key=' + encodeURIComponent(key);
  const CREDENTIALS: [string, (path: string) => [string, Record<string, string>]][] = [
    ['no key at all', (p) => [p, {}]],
    ['a wrong x-goog-api-key', (p) => [p, { 'x-goog-api-key': 'sy-wrong-goog-key' }]],
    ['a wrong ?key=', (p) => [withQuery(p, 'sy-wrong-query-key'), {}]],
    ['a wrong Bearer', (p) => [p, { authorization: 'Bearer sy-wrong-bearer-key' }]],
    ['an empty x-goog-api-key', (p) => [p, { 'x-goog-api-key': '' }]],
    ['an empty ?key=', (p) => [withQuery(p, ''), {}]],
    ['a Basic authorization', (p) => [p, { authorization: 'Basic ' + Buffer.from('u:' + KEY).toString('base64') }]],
  ];
  const AUTH_ROWS = ROUTES.flatMap(([method, path, body]) => CREDENTIALS.map(([what, make]) => [method, path, what, make, body] as const));

  it.each(AUTH_ROWS)('%s %s with %s: 401 UNAUTHENTICATED, nothing sent upstream, the key not echoed', async (method, path, _what, make, body) => {
    const before = h.upstream.received.length;
    const [url, headers] = make(path);
    const a = await send(method, url, body, headers);
    const e = googleError(a, 401, 'UNAUTHENTICATED');
    expect(e.message).toMatch(/key/i);
    expect(a.text).not.toMatch(/sy-wrong|dTo/);
    expect(h.upstream.received).toHaveLength(before);
  });

  it('the right key in each of the three places is let in (the 401s above are about the key)', async () => {
    h.upstream.setDefault(() => ({ kind: 'reply', blocks: [{ type: 'text', text: 'ok' }] }));
    for (const [url, headers] of [
      [`/v1beta/models/${alias}:generateContent`, { 'x-goog-api-key': KEY }],
      [withQuery(`/v1beta/models/${alias}:generateContent`, KEY), {}],
      [`/v1/models/${alias}:generateContent`, { authorization: `Bearer ${KEY}` }],
    ] as [string, Record<string, string>][]) {
      expect((await post(url, { contents: [hi] }, headers)).status).toBe(200);
    }
  });

  const NOT_FOUND: [string, string, string][] = [
    ['an unknown model', 'POST', '/v1beta/models/no-such-model:generateContent'],
    ['an unknown model streamed', 'POST', '/v1beta/models/no-such-model:streamGenerateContent?alt=sse'],
    ['an unknown model counted', 'POST', '/v1beta/models/no-such-model:countTokens'],
    ['an unknown model under /v1', 'POST', '/v1/models/no-such-model:generateContent'],
    ['an unknown model fetched', 'GET', '/v1beta/models/no-such-model'],
    ['embedContent', 'POST', `/v1beta/models/${alias}:embedContent`],
    ['batchGenerateContent', 'POST', `/v1beta/models/${alias}:batchGenerateContent`],
    ['an empty method', 'POST', `/v1beta/models/${alias}:`],
    ['no method at all', 'POST', `/v1beta/models/${alias}`],
    ['a method in the wrong case', 'POST', `/v1beta/models/${alias}:GenerateContent`],
    ['an unknown path under /v1beta', 'POST', '/v1beta/cachedContents'],
    ['a tuned model path', 'POST', `/v1beta/tunedModels/${alias}:generateContent`],
  ];
  it.each(NOT_FOUND)('%s (%s %s): 404 NOT_FOUND in Google\'s envelope', async (_what, method, path) => {
    const before = h.upstream.received.length;
    const e = googleError(await send(method, path, method === 'GET' ? undefined : { contents: [hi] }), 404, 'NOT_FOUND');
    expect(e.message.length).toBeGreaterThan(10);
    expect(h.upstream.received).toHaveLength(before);
  });

  const BAD_SEGMENTS: [string, string][] = [
    ['dot-dot in the model', '..%2F..%2Fetc:generateContent'],
    ['an encoded slash in the model', 'a%2Fb:generateContent'],
    ['a dot-dot model', '..:generateContent'],
    ['an empty model', ':generateContent'],
    ['a model of 200 characters', 'm'.repeat(200) + ':generateContent'],
    ['a NUL in the model', 'a%00b:generateContent'],
    ['a space in the model', 'a%20b:countTokens'],
    ['a backslash in the model', 'a%5Cb:streamGenerateContent'],
  ];
  it.each(BAD_SEGMENTS)('%s: 400 INVALID_ARGUMENT naming the model', async (_what, segment) => {
    const before = h.upstream.received.length;
    const e = googleError(await post('/v1beta/models/' + segment, { contents: [hi] }), 400, 'INVALID_ARGUMENT');
    expect(e.message).toContain('model');
    expect(h.upstream.received).toHaveLength(before);
  });

  it('a model the key may not use is 404 on every method, as if it did not exist', async () => {
    const before = h.upstream.received.length;
    for (const m of METHODS) {
      const e = googleError(await post(`/v1beta/models/${alias}:${m}`, { contents: [hi] }, { 'x-goog-api-key': NARROW }), 404, 'NOT_FOUND');
      expect(e.message).toContain(alias);
    }
    googleError(await send('GET', `/v1beta/models/${alias}`, undefined, { 'x-goog-api-key': NARROW }), 404, 'NOT_FOUND');
    expect(h.upstream.received).toHaveLength(before);
  });
});
