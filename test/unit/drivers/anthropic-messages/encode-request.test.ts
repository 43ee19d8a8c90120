import { describe, expect, it } from 'vitest';
import { anthropicDriver } from '../../../../src/drivers/anthropic-messages/index.js';
import { GatewayError } from '../../../../src/errors.js';
import { foldEvents } from '../../../../src/ir/fold-events.js';
import { fromCallerId, toCallerId } from '../../../../src/ir/tool-ids.js';
import { wireToolName } from '../../../../src/ir/tool-names.js';
import type { AssistantPart, IrRequest, ReasoningCarry, ToolDefinition, Turn, UserPart, Warning } from '../../../../src/ir/types.js';
import { decodeChunks, encode, request, target, warningFields } from './support.js';

const user = (...parts: UserPart[]): Turn => ({ role: 'user', parts });
const assistant = (...parts: AssistantPart[]): Turn => ({ role: 'assistant', parts });
const text = (t: string) => ({ type: 'text' as const, text: t });
const call = (id: string, name: string, args: string, extra: Partial<Extract<AssistantPart, { type: 'tool-call' }>> = {}): AssistantPart => ({
  type: 'tool-call',
  id,
  name,
  arguments: args,
  kind: 'function',
  ...extra,
});
const result = (callId: string, content: string, isError = false): UserPart => ({
  type: 'tool-result',
  callId,
  content: content ? [text(content)] : [],
  isError,
  kind: 'function',
});

const WEATHER: ToolDefinition = { name: 'get_weather', kind: 'function', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } };
const TIME: ToolDefinition = { name: 'get_time', kind: 'function', inputSchema: { type: 'object', properties: {} } };

const THINKING_CARRY: ReasoningCarry = {
  family: 'anthropic',
  block: { type: 'thinking', thinking: 'Need the weather tool.\n  Keep  spacing ✓', signature: 'EqoBCkgIBhABGAIiQ+sig/==' },
};
const REDACTED_CARRY: ReasoningCarry = { family: 'anthropic', block: { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix…' } };
const OPENAI_CARRY: ReasoningCarry = { family: 'openai', id: 'rs_1', encryptedContent: 'gAAAAB…', summary: [{ type: 'summary_text', text: 'Need the tool' }] };

/** A Responses-style tool loop: question, assistant reasoning + call, the call's result. */
function toolLoop(carry: ReasoningCarry | undefined, over: Partial<IrRequest> = {}): IrRequest {
  const reasoning: AssistantPart[] = carry ? [{ type: 'reasoning', text: carry.family === 'anthropic' && carry.block.type === 'thinking' ? carry.block.thinking : '', carry }] : [];
  return request({
    tools: [WEATHER],
    turns: [user(text('Weather in Paris?')), assistant(...reasoning, call('toolu_01A', 'get_weather', '{"city":"Paris"}')), user(result('toolu_01A', '18°C, sunny'))],
    ...over,
  });
}

describe('encodeRequest: envelope and simple text', () => {
  it('simple text from a Responses caller: path, headers, default max_tokens, automatic cache breakpoint', () => {
    const out = encode(request({ turns: [user(text('Hello there'))] }));
    expect(out.path).toBe('/v1/messages');
    expect(out.headers).toEqual({ 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': 'sk-ant-test' });
    expect(out.body).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 32000,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello there' }] }],
      cache_control: { type: 'ephemeral' },
    });
    expect(out.warnings).toEqual([]);
  });

  it('stream flag, no key when none is configured, target headers win (forwarded version and betas)', () => {
    const out = encode(request({ maxOutputTokens: 256 }), true, target({ apiKey: undefined, headers: { 'anthropic-version': '2026-10-21', 'anthropic-beta': 'context-1m-2025-08-07' } }));
    expect(out.body.stream).toBe(true);
    expect(out.body.max_tokens).toBe(256);
    expect(out.headers).toEqual({ 'content-type': 'application/json', 'anthropic-version': '2026-10-21', 'anthropic-beta': 'context-1m-2025-08-07' });
    expect(encode(request()).body).not.toHaveProperty('stream');
  });

  it('system text blocks keep cache_control; blank ones dropped; no system key when nothing is left', () => {
    const out = encode(
      request({
        sourceProtocol: 'messages',
        system: [text('You are terse.'), text('  '), { type: 'text', text: 'Project rules', cacheControl: { type: 'ephemeral', ttl: '1h' } }],
      }),
    );
    expect(out.body.system).toEqual([
      { type: 'text', text: 'You are terse.' },
      { type: 'text', text: 'Project rules', cache_control: { type: 'ephemeral', ttl: '1h' } },
    ]);
    // The caller placed its own breakpoint.
    expect(out.body).not.toHaveProperty('cache_control');
    expect(encode(request({ system: [text('')] })).body).not.toHaveProperty('system');
  });

  it('sampling: temperature clamped to [0,1] with a warning; top_p, top_k, stop sequences, user id, JSON schema output', () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };
    const out = encode(
      request({ temperature: 1.6, topP: 0.8, topK: 40, stopSequences: ['END'], user: 'user-42', outputFormat: { type: 'json_schema', name: 'a', schema } }),
    );
    expect(out.body).toMatchObject({ temperature: 1, top_p: 0.8, top_k: 40, stop_sequences: ['END'], metadata: { user_id: 'user-42' } });
    expect(out.body.output_config).toEqual({ format: { type: 'json_schema', schema } });
    expect(warningFields(out.warnings)).toEqual(['temperature']);
    const jsonObject = encode(request({ outputFormat: { type: 'json_object' }, temperature: 0.3 }));
    expect(jsonObject.body).not.toHaveProperty('output_config');
    expect(jsonObject.body.temperature).toBe(0.3);
    expect(warningFields(jsonObject.warnings)).toEqual(['output_format']);
  });

  it('same-family extras are copied verbatim; another protocol’s extras send nothing', () => {
    const messages = encode(
      request({ sourceProtocol: 'messages', extras: { messages: { context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] }, service_tier: 'auto', container: 'c_1' } } }),
    );
    expect(messages.body).toMatchObject({ context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] }, service_tier: 'auto', container: 'c_1' });
    const responses = encode(request({ extras: { responses: { prompt_cache_key: 'k', store: false, service_tier: 'flex' } } }));
    expect(Object.keys(responses.body).sort()).toEqual(['cache_control', 'max_tokens', 'messages', 'model']);
  });
});

describe('encodeRequest: turns', () => {
  it('merges consecutive same-role turns and drops blank parts and empty turns', () => {
    const out = encode(
      request({
        turns: [user(text('a')), user(text(''), text('b')), assistant(text('')), assistant(text('c')), user(text(' \n')), user(text('d'))],
      }),
    );
    expect(out.body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'c' }] },
      { role: 'user', content: [{ type: 'text', text: 'd' }] },
    ]);
  });

  it('a final assistant prefill loses its trailing whitespace', () => {
    const out = encode(request({ turns: [user(text('Count')), assistant(text('1, 2, '))] }));
    expect(out.body.messages[1]).toEqual({ role: 'assistant', content: [{ type: 'text', text: '1, 2,' }] });
  });

  it('tool round trip: call and result ids go back to the upstream id; arguments become the input object', () => {
    // A caller-facing id that re-encoded a long (non-portable) Anthropic id, and a plain Responses id.
    const longId = 'toolu_' + 'x'.repeat(70);
    const callerLong = toCallerId(longId);
    expect(callerLong).not.toBe(longId);
    const out = encode(
      request({
        tools: [WEATHER],
        turns: [
          user(text('Weather in Paris and Rome?')),
          assistant(call(callerLong, 'get_weather', '{"city":"Paris"}'), call('call_9Zr', 'get_weather', '{"city": "Rome"}')),
          user(result(callerLong, '18°C'), result('call_9Zr', '')),
        ],
      }),
    );
    expect(out.body.messages[1].content).toEqual([
      { type: 'tool_use', id: longId, name: 'get_weather', input: { city: 'Paris' } },
      { type: 'tool_use', id: 'call_9Zr', name: 'get_weather', input: { city: 'Rome' } },
    ]);
    expect(out.body.messages[2].content).toEqual([
      { type: 'tool_result', tool_use_id: longId, content: '18°C' },
      { type: 'tool_result', tool_use_id: 'call_9Zr' },
    ]);
    // And back: the decoder gives the caller the same id it will send again.
    const events = decodeChunks(request({ tools: [WEATHER] }), [
      'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","model":"m","usage":{"input_tokens":1,"output_tokens":1}}}\n\n' +
        `event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"${longId}","name":"get_weather","input":{}}}\n\n` +
        'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n' +
        'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    ]);
    const decodedId = (foldEvents(events).content[0] as { id: string }).id;
    expect(decodedId).toBe(callerLong);
    expect(fromCallerId(decodedId)).toBe(longId);
  });

  it('ids from another upstream that Anthropic rejects are re-encoded identically on the call and its result', () => {
    const chatId = toCallerId('functions.get_weather:0');
    const out = encode(
      request({
        tools: [WEATHER],
        turns: [user(text('q')), assistant(call(chatId, 'get_weather', '{}'), call('bad.id|1', 'get_weather', '{}')), user(result(chatId, 'ok'), result('bad.id|1', 'ok'))],
      }),
    );
    const uses = out.body.messages[1].content.map((b: { id: string }) => b.id);
    const results = out.body.messages[2].content.map((b: { tool_use_id: string }) => b.tool_use_id);
    expect(uses).toEqual([chatId, toCallerId('bad.id|1')]);
    expect(results).toEqual(uses);
    for (const id of uses) expect(id).toMatch(/^[a-zA-Z0-9_-]+$/);
  });

  it('orphan call → synthesized error result; orphan result → user text; trailing call → appended user turn', () => {
    const out = encode(
      request({
        tools: [WEATHER],
        turns: [
          user(result('call_lost', 'stale output'), text('Weather?')),
          assistant(call('call_A', 'get_weather', '{"city":"Oslo"}')),
          user(text('never mind, what time is it?')),
          assistant(text('Checking.'), call('call_B', 'get_weather', 'not json')),
        ],
      }),
    );
    expect(out.body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Result of tool call call_lost:\nstale output' }, { type: 'text', text: 'Weather?' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'call_A', name: 'get_weather', input: { city: 'Oslo' } }] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_A', content: 'Tool call was not completed.', is_error: true },
          { type: 'text', text: 'never mind, what time is it?' },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'Checking.' }, { type: 'tool_use', id: 'call_B', name: 'get_weather', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_B', content: 'Tool call was not completed.', is_error: true }] },
    ]);
    expect(warningFields(out.warnings).sort()).toEqual(['tool_call', 'tool_call.arguments', 'tool_result']);
  });

  it('two parallel calls: results first, in call order, whatever order the caller gave them', () => {
    const out = encode(
      request({
        tools: [WEATHER, TIME],
        turns: [
          user(text('Weather and time?')),
          assistant(text('Both at once.'), call('toolu_W', 'get_weather', '{"city":"Lima"}'), call('toolu_T', 'get_time', '')),
          user(text('thanks'), result('toolu_T', '09:00'), { type: 'tool-result', callId: 'toolu_W', content: [text('rain')], isError: true, kind: 'function' }),
        ],
      }),
    );
    expect(out.body.messages[1].content).toEqual([
      { type: 'text', text: 'Both at once.' },
      { type: 'tool_use', id: 'toolu_W', name: 'get_weather', input: { city: 'Lima' } },
      { type: 'tool_use', id: 'toolu_T', name: 'get_time', input: {} },
    ]);
    expect(out.body.messages[2].content).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_W', content: 'rain', is_error: true },
      { type: 'tool_result', tool_use_id: 'toolu_T', content: '09:00' },
      { type: 'text', text: 'thanks' },
    ]);
    expect(out.warnings).toEqual([]);
  });

  it('arguments that are JSON but not an object are wrapped as {value}', () => {
    const out = encode(request({ tools: [WEATHER], turns: [user(text('q')), assistant(call('c1', 'get_weather', '["a"]')), user(result('c1', 'x'))] }));
    expect(out.body.messages[1].content[0].input).toEqual({ value: ['a'] });
  });
});

describe('encodeRequest: media', () => {
  it('images: base64 (mime normalized) and URL; tool results carry images as blocks', () => {
    const out = encode(
      request({
        turns: [
          user(
            { type: 'image', source: { kind: 'base64', mediaType: 'image/JPG', data: 'AAAA' }, detail: 'high' },
            { type: 'image', source: { kind: 'url', url: 'https://example.com/a.webp' } },
            text('What is this?'),
          ),
        ],
      }),
    );
    expect(out.body.messages[0].content).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: 'AAAA' } },
      { type: 'image', source: { type: 'url', url: 'https://example.com/a.webp' } },
      { type: 'text', text: 'What is this?' },
    ]);
    expect(out.warnings).toEqual([{ field: 'image.detail', message: 'image detail high has no Anthropic equivalent; ignored' }]);
    const withResult = encode(
      request({
        tools: [WEATHER],
        turns: [
          user(text('Screenshot?')),
          assistant(call('c1', 'get_weather', '{}')),
          user({ type: 'tool-result', callId: 'c1', content: [text('see image'), { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBO' } }], isError: false, kind: 'function' }),
        ],
      }),
    );
    expect(withResult.body.messages[2].content[0]).toEqual({
      type: 'tool_result',
      tool_use_id: 'c1',
      content: [{ type: 'text', text: 'see image' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBO' } }],
    });
  });

  it('an unsupported image type is a 400 naming the part, before anything is sent', () => {
    let caught: unknown;
    try {
      encode(request({ turns: [user(text('look'), { type: 'image', source: { kind: 'base64', mediaType: 'image/bmp', data: 'Qk0' } })] }));
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(GatewayError);
    expect((caught as GatewayError).kind).toBe('invalid_request');
    expect((caught as GatewayError).param).toBe('messages.0.content.1');
    expect((caught as GatewayError).message).toContain('image/bmp');
  });

  it('file ids never cross providers, but a Messages caller’s own file ids pass', () => {
    const turns = [user({ type: 'image', source: { kind: 'file-id', fileId: 'file_011' } }, text('x'))];
    expect(() => encode(request({ turns }))).toThrow(expect.objectContaining({ kind: 'invalid_request', param: 'messages.0.content.0' }));
    const same = encode(request({ sourceProtocol: 'messages', turns }));
    expect(same.body.messages[0].content[0]).toEqual({ type: 'image', source: { type: 'file', file_id: 'file_011' } });
  });

  it('documents: base64 PDF, plain text and URL', () => {
    const out = encode(
      request({
        turns: [
          user(
            { type: 'file', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBERi0' }, filename: 'report.pdf' },
            { type: 'file', source: { kind: 'text', mediaType: 'text/plain', data: 'notes' }, title: 'Notes' },
            { type: 'file', source: { kind: 'url', url: 'https://example.com/x.pdf' } },
            text('Summarize'),
          ),
        ],
      }),
    );
    expect(out.body.messages[0].content).toEqual([
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0' }, title: 'report.pdf' },
      { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'notes' }, title: 'Notes' },
      { type: 'document', source: { type: 'url', url: 'https://example.com/x.pdf' } },
      { type: 'text', text: 'Summarize' },
    ]);
  });
});

describe('encodeRequest: reasoning and thinking', () => {
  it('an Anthropic carry is restored byte-exact at the start of its turn, order kept; thinking stays on in the loop', () => {
    const req = toolLoop(undefined, { reasoning: { effort: 'high' } });
    req.turns[1] = assistant(
      text('Let me check.'),
      { type: 'reasoning', text: 'summary', carry: REDACTED_CARRY },
      call('toolu_01A', 'get_weather', '{"city":"Paris"}'),
      { type: 'reasoning', text: 'Need the weather tool.', carry: THINKING_CARRY },
    );
    const warnings: Warning[] = [];
    const raw = anthropicDriver.encodeRequest(req, target(), false, warnings).body;
    const body = JSON.parse(raw) as Record<string, any>;
    expect(body.messages[1].content).toEqual([
      { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix…' },
      { type: 'thinking', thinking: 'Need the weather tool.\n  Keep  spacing ✓', signature: 'EqoBCkgIBhABGAIiQ+sig/==' },
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_use', id: 'toolu_01A', name: 'get_weather', input: { city: 'Paris' } },
    ]);
    // Byte-exact on the wire: the signed block serializes exactly as Anthropic sent it.
    expect(raw).toContain('{"type":"thinking","thinking":"Need the weather tool.\\n  Keep  spacing ✓","signature":"EqoBCkgIBhABGAIiQ+sig/=="}');
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 16384 });
    expect(warnings).toEqual([]);
  });

  it('a foreign carry is dropped with a warning, and thinking is disabled for the open tool loop', () => {
    const out = encode(toolLoop(OPENAI_CARRY, { reasoning: { effort: 'medium' }, temperature: 0.2 }));
    expect(out.body.messages[1].content).toEqual([{ type: 'tool_use', id: 'toolu_01A', name: 'get_weather', input: { city: 'Paris' } }]);
    expect(out.body.thinking).toEqual({ type: 'disabled' });
    expect(out.body.max_tokens).toBe(32000);
    // Thinking is off after all, so temperature may go.
    expect(out.body.temperature).toBe(0.2);
    expect(warningFields(out.warnings)).toEqual(['reasoning', 'thinking']);
  });

  it('no open loop (a new user question follows the results): thinking stays on without restorable thinking', () => {
    const req = toolLoop(OPENAI_CARRY, { reasoning: { effort: 'low' } });
    req.turns.push(assistant(text('18°C.')), user(text('And tomorrow?')));
    const out = encode(req);
    expect(out.body.thinking).toEqual({ type: 'enabled', budget_tokens: 4096 });
  });

  it('thinking off: thinking blocks are stripped from the final assistant message; reasoning-only turns are dropped', () => {
    const out = encode(
      request({
        sourceProtocol: 'messages',
        tools: [WEATHER],
        turns: [
          user(text('q1')),
          assistant({ type: 'reasoning', text: '', carry: REDACTED_CARRY }),
          user(text('q2')),
          assistant({ type: 'reasoning', text: 'x', carry: THINKING_CARRY }, call('toolu_01A', 'get_weather', '{}')),
          user(result('toolu_01A', 'ok')),
        ],
      }),
    );
    expect(out.body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'q1' }, { type: 'text', text: 'q2' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01A', name: 'get_weather', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01A', content: 'ok' }] },
    ]);
    expect(out.body).not.toHaveProperty('thinking');
    expect(warningFields(out.warnings)).toEqual(['reasoning', 'reasoning']);
  });

  it('effort → budget: minimal..max, raising max_tokens when the caller set none', () => {
    const budget = (effort: NonNullable<IrRequest['reasoning']>['effort']) => encode(request({ reasoning: { effort } })).body;
    expect(budget('minimal').thinking).toEqual({ type: 'enabled', budget_tokens: 1024 });
    expect(budget('low').thinking.budget_tokens).toBe(4096);
    expect(budget('medium').thinking.budget_tokens).toBe(8192);
    expect(budget('high').thinking.budget_tokens).toBe(16384);
    expect(budget('xhigh')).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 32000 }, max_tokens: 36096 });
    expect(budget('max')).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 48000 }, max_tokens: 52096 });
    expect(budget('none')).not.toHaveProperty('thinking');
    // OpenAI semantics: a reasoning request without an effort is the default effort (Codex sends this).
    expect(encode(request({ reasoning: { summary: 'auto' } })).body).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 8192 } });
    expect(encode(request({ reasoning: { summary: null } })).body).not.toHaveProperty('thinking');
  });

  it('an explicit max_tokens lowers the budget below it, or disables thinking when under 1024 remains', () => {
    const lowered = encode(request({ maxOutputTokens: 10000, reasoning: { effort: 'high' } }));
    expect(lowered.body).toMatchObject({ max_tokens: 10000, thinking: { type: 'enabled', budget_tokens: 9999 } });
    expect(warningFields(lowered.warnings)).toEqual(['thinking']);
    const tooSmall = encode(request({ maxOutputTokens: 1000, reasoning: { effort: 'low' } }));
    expect(tooSmall.body).toMatchObject({ max_tokens: 1000, thinking: { type: 'disabled' } });
    expect(warningFields(tooSmall.warnings)).toEqual(['thinking']);
  });

  it('Messages callers: manual budget, adaptive with effort, effort alone without thinking', () => {
    const manual = encode(request({ sourceProtocol: 'messages', maxOutputTokens: 4000, reasoning: { mode: 'enabled', budgetTokens: 2048, display: 'omitted' } }));
    expect(manual.body).toMatchObject({ max_tokens: 4000, thinking: { type: 'enabled', budget_tokens: 2048, display: 'omitted' } });
    expect(manual.body).not.toHaveProperty('output_config');
    const adaptive = encode(request({ sourceProtocol: 'messages', maxOutputTokens: 4000, reasoning: { mode: 'adaptive', effort: 'max' } }));
    expect(adaptive.body).toMatchObject({ thinking: { type: 'adaptive' }, output_config: { effort: 'max' }, max_tokens: 4000 });
    const effortOnly = encode(request({ sourceProtocol: 'messages', maxOutputTokens: 4000, reasoning: { effort: 'low' } }));
    expect(effortOnly.body).not.toHaveProperty('thinking');
    expect(effortOnly.body.output_config).toEqual({ effort: 'low' });
  });

  it('with thinking on: temperature and top_k dropped with warnings, low top_p dropped, high top_p kept', () => {
    const out = encode(request({ reasoning: { effort: 'low' }, temperature: 0.5, topK: 5, topP: 0.9 }));
    expect(out.body).not.toHaveProperty('temperature');
    expect(out.body).not.toHaveProperty('top_k');
    expect(out.body).not.toHaveProperty('top_p');
    expect(warningFields(out.warnings).sort()).toEqual(['temperature', 'top_k', 'top_p']);
    const high = encode(request({ reasoning: { effort: 'low' }, topP: 0.97, temperature: 1 }));
    expect(high.body.top_p).toBe(0.97);
    expect(high.warnings).toEqual([]);
  });

  it('a forced tool choice with manual thinking sends thinking disabled', () => {
    const out = encode(request({ tools: [WEATHER], toolChoice: { type: 'required' }, reasoning: { effort: 'high' } }));
    expect(out.body.tool_choice).toEqual({ type: 'any' });
    expect(out.body.thinking).toEqual({ type: 'disabled' });
    expect(warningFields(out.warnings)).toEqual(['thinking']);
  });
});

describe('encodeRequest: tools', () => {
  it('function tools: wire schema, description, strict, cache_control; missing schema → empty object schema', () => {
    const out = encode(
      request({
        sourceProtocol: 'messages',
        tools: [
          { ...WEATHER, description: 'Weather now', strict: true, cacheControl: { type: 'ephemeral' } },
          { name: 'ping', kind: 'function' },
          { name: 'loose', kind: 'function', inputSchema: { properties: { a: { type: 'string' } } } },
        ],
      }),
    );
    expect(out.body.tools).toEqual([
      { name: 'get_weather', description: 'Weather now', input_schema: WEATHER.inputSchema, strict: true, cache_control: { type: 'ephemeral' } },
      { name: 'ping', input_schema: { type: 'object', properties: {} } },
      { name: 'loose', input_schema: { type: 'object', properties: { a: { type: 'string' } } } },
    ]);
  });

  it('a root combinator or a non-object root is a 400 naming tools[i]', () => {
    const anyOf = { name: 'pick', kind: 'function' as const, inputSchema: { anyOf: [{ type: 'object' }, { type: 'string' }] } };
    expect(() => encode(request({ tools: [WEATHER, anyOf] }))).toThrow(expect.objectContaining({ kind: 'invalid_request', param: 'tools[1]' }));
    const str = { name: 's', kind: 'function' as const, inputSchema: { type: 'string' } };
    expect(() => encode(request({ tools: [str] }))).toThrow(expect.objectContaining({ kind: 'invalid_request', param: 'tools[0]' }));
  });

  it('Responses custom tool (apply_patch) and a namespaced tool: definitions, history calls, and names mapped back', () => {
    const grammar = 'start: begin_patch hunk+ end_patch';
    const tools: ToolDefinition[] = [
      { name: 'apply_patch', kind: 'custom', description: 'Use this to edit files.', format: { type: 'grammar', syntax: 'lark', definition: grammar } },
      { name: 'spawn', namespace: 'multi_agent_v1', kind: 'function', inputSchema: { type: 'object', properties: { task: { type: 'string' } } } },
    ];
    const patch = '*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch';
    const out = encode(
      request({
        tools,
        turns: [
          user(text('edit and delegate')),
          assistant(call('call_P', 'apply_patch', patch, { kind: 'custom' }), call('call_S', 'spawn', '{"task":"tests"}', { namespace: 'multi_agent_v1' })),
          user({ type: 'tool-result', callId: 'call_P', content: [text('Done')], isError: false, kind: 'custom' }, result('call_S', 'started')),
        ],
      }),
    );
    expect(out.body.tools).toEqual([
      {
        name: 'apply_patch',
        description: `Use this to edit files.\n\nThe input must match this lark grammar:\n${grammar}`,
        input_schema: {
          type: 'object',
          properties: { input: { type: 'string', description: 'The raw input for this tool, as free text.' } },
          required: ['input'],
        },
      },
      { name: 'multi_agent_v1__spawn', input_schema: { type: 'object', properties: { task: { type: 'string' } } } },
    ]);
    expect(out.body.messages[1].content).toEqual([
      { type: 'tool_use', id: 'call_P', name: 'apply_patch', input: { input: patch } },
      { type: 'tool_use', id: 'call_S', name: 'multi_agent_v1__spawn', input: { task: 'tests' } },
    ]);
  });

  it('a namespaced name over 128 characters is shortened deterministically and decoded back', () => {
    const ns = 'mcp_server_' + 'n'.repeat(70);
    const name = 'tool_' + 't'.repeat(70);
    const tool: ToolDefinition = { name, namespace: ns, kind: 'function', inputSchema: { type: 'object', properties: {} } };
    const wire = wireToolName(name, ns, 128);
    expect(wire.length).toBeLessThanOrEqual(128);
    const out = encode(request({ tools: [tool], toolChoice: { type: 'tool', name } }));
    expect(out.body.tools[0].name).toBe(wire);
    expect(out.body.tool_choice).toEqual({ type: 'tool', name: wire });
    const events = decodeChunks(request({ tools: [tool] }), [
      'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","model":"m","usage":{"input_tokens":1,"output_tokens":1}}}\n\n' +
        `event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"${wire}","input":{}}}\n\n`,
    ]);
    expect(events[1]).toEqual({ type: 'tool-call-start', block: 0, id: 'toolu_1', name, kind: 'function', namespace: ns });
  });

  it('tool_choice mapping and parallel_tool_calls:false', () => {
    const choice = (over: Partial<IrRequest>) => encode(request({ tools: [WEATHER, TIME], ...over })).body.tool_choice;
    expect(choice({ toolChoice: { type: 'auto' } })).toEqual({ type: 'auto' });
    expect(choice({ toolChoice: { type: 'required' } })).toEqual({ type: 'any' });
    expect(choice({ toolChoice: { type: 'none' } })).toEqual({ type: 'none' });
    expect(choice({ toolChoice: { type: 'tool', name: 'get_time' } })).toEqual({ type: 'tool', name: 'get_time' });
    expect(choice({})).toBeUndefined();
    expect(choice({ parallelToolCalls: false })).toEqual({ type: 'auto', disable_parallel_tool_use: true });
    expect(choice({ toolChoice: { type: 'required' }, parallelToolCalls: false })).toEqual({ type: 'any', disable_parallel_tool_use: true });
    expect(choice({ toolChoice: { type: 'tool', name: 'get_weather' }, parallelToolCalls: false })).toEqual({
      type: 'tool',
      name: 'get_weather',
      disable_parallel_tool_use: true,
    });
    expect(choice({ toolChoice: { type: 'none' }, parallelToolCalls: false })).toEqual({ type: 'none' });
    // No tools, no tool_choice at all.
    expect(encode(request({ parallelToolCalls: false, toolChoice: { type: 'auto' } })).body).not.toHaveProperty('tool_choice');
  });

  it('allowed_tools: only the listed tools are sent, with any for mode required and auto otherwise', () => {
    const required = encode(request({ tools: [WEATHER, TIME], toolChoice: { type: 'allowed', mode: 'required', names: ['get_time'] } })).body;
    expect(required.tools.map((t: { name: string }) => t.name)).toEqual(['get_time']);
    expect(required.tool_choice).toEqual({ type: 'any' });
    const auto = encode(request({ tools: [WEATHER, TIME], toolChoice: { type: 'allowed', mode: 'auto', names: ['get_weather', 'get_time'] } })).body;
    expect(auto.tools).toHaveLength(2);
    expect(auto.tool_choice).toEqual({ type: 'auto' });
  });
});
