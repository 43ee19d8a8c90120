// The conformance matrix's scenarios and runner, shared by the first-party matrix
// (test/e2e/conformance.test.ts) and the cloud platforms' (test/e2e/platforms/): 3 front doors × the
// upstream protocols × streamed and not × every scenario, with the official SDKs as clients against a
// scripted upstream that speaks each protocol completely. Each cell asserts what the client got AND what
// the upstream received. Cells a protocol cannot express are declared with their reason (and listed in
// the README), never silently skipped.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MODELS, type Harness, type UpstreamProtocol } from './gateway-harness.js';
import { ask, type Door, type Exchange } from './door-clients.js';
import { viewOf, type UpstreamView } from './upstream-view.js';

export interface Cell {
  door: Door;
  upstream: UpstreamProtocol;
  stream: boolean;
  /** A cloud platform's fake records its own envelope: this checks it and reads it back as the protocol's
   * view (absent: the upstream saw the protocol's own body). */
  seen?: (received: unknown) => UpstreamView;
}

interface Scenario {
  name: string;
  /** Why this cell cannot exist, if it cannot. */
  unsupported?: (cell: Cell) => string | undefined;
  run: (h: Harness, cell: Cell) => Promise<void>;
}

const PNG_1PX = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

const alias = (c: Cell) => MODELS[c.upstream].alias;
const passthrough = (c: Cell) => c.door === c.upstream;

function lastSeen(h: Harness, cell: Cell): UpstreamView {
  const gen = h.upstream.received.filter((r) => !/count[_-]tokens|input_tokens|countTokens|^\/(v1\/)?models/.test(r.path));
  const last = gen[gen.length - 1];
  if (!last) throw new Error('upstream received nothing');
  expect(last.protocol).toBe(cell.upstream);
  return cell.seen ? cell.seen(last) : viewOf(cell.upstream, last.body, last.path);
}

/** The function calls of a Gemini history that carry a thought signature. */
function geminiSignedCalls(body: Record<string, any>): { name: string; signature: string }[] { // eslint-disable-line @typescript-eslint/no-explicit-any
  const out: { name: string; signature: string }[] = [];
  for (const c of body.contents ?? []) for (const p of c.parts ?? []) if (p.functionCall && p.thoughtSignature) out.push({ name: p.functionCall.name, signature: p.thoughtSignature });
  return out;
}

function expectNormalEnd(ex: Exchange, cell: Cell, toolUse = false): void {
  if (cell.door === 'messages') expect(ex.answer.stop).toBe(toolUse ? 'tool_use' : 'end_turn');
  else if (cell.door === 'chat') expect(ex.answer.stop).toBe(toolUse ? 'tool_calls' : 'stop');
  else expect(ex.answer.stop).toBe('completed');
}

function expectUsage(ex: Exchange, cell: Cell): void {
  expect(ex.answer.usage.output).toBeGreaterThan(0);
  expect(ex.answer.usage.input).toBeGreaterThan(0);
  if (cell.door !== 'messages') expect(ex.answer.usage.total).toBe(ex.answer.usage.input + ex.answer.usage.output);
}

/** Tool-call ids as each upstream family tends to make them; the chat one is not a valid Anthropic id. */
const UPSTREAM_CALL_ID: Record<UpstreamProtocol, string> = {
  messages: 'toolu_01A09q90qw90lq917835lq9',
  responses: 'call_Wq2Lx7',
  chat: 'functions.get_weather:0',
  gemini: 'fc-8f2k1q',
};

const scenarios: Scenario[] = [
  {
    name: 'plain text',
    async run(h, cell) {
      h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Hello there!' }] });
      const ex = await ask(h, cell.door, alias(cell), { turns: [{ role: 'user', text: 'Say hello' }] }, cell.stream);
      expect(ex.answer.texts.join('')).toBe('Hello there!');
      expect(ex.answer.model).toBe(alias(cell));
      expectNormalEnd(ex, cell);
      expectUsage(ex, cell);
      const seen = lastSeen(h, cell);
      expect(seen.model).toBe(MODELS[cell.upstream].upstream);
      expect(seen.userTexts).toEqual(['Say hello']);
      // Pass-through keeps the caller's mode. Translation (stream_upstream: auto) fetches a short bounded
      // answer in one body and streams an unbounded one: the Messages door always bounds it (max_tokens
      // 1024 here), this Responses caller sets no max_output_tokens.
      expect(seen.stream).toBe(passthrough(cell) || cell.stream ? cell.stream : cell.door !== 'messages');
    },
  },
  {
    name: 'system / instructions',
    async run(h, cell) {
      h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Ok.' }] });
      const ex = await ask(h, cell.door, alias(cell), { system: 'You are terse.', turns: [{ role: 'user', text: 'Hi' }] }, cell.stream);
      expect(ex.answer.texts.join('')).toBe('Ok.');
      const seen = lastSeen(h, cell);
      expect(seen.system).toBe('You are terse.');
      expect(seen.userTexts).toEqual(['Hi']);
    },
  },
  {
    name: 'multi-turn',
    async run(h, cell) {
      h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Your name is Ada.' }] });
      const turns = [
        { role: 'user' as const, text: 'My name is Ada.' },
        { role: 'assistant' as const, text: 'Hello Ada.' },
        { role: 'user' as const, text: 'What is my name?' },
      ];
      const ex = await ask(h, cell.door, alias(cell), { turns }, cell.stream);
      expect(ex.answer.texts.join('')).toBe('Your name is Ada.');
      const seen = lastSeen(h, cell);
      expect(seen.userTexts).toEqual(['My name is Ada.', 'What is my name?']);
      expect(seen.assistantTexts).toEqual(['Hello Ada.']);
    },
  },
  {
    name: 'tool definitions with forced tool_choice',
    async run(h, cell) {
      h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'tool-call', id: UPSTREAM_CALL_ID[cell.upstream], name: 'get_weather', arguments: '{"city":"Paris"}' }] });
      const ex = await ask(h, cell.door, alias(cell), { turns: [{ role: 'user', text: 'Weather in Paris?' }], tools: true, forceTool: true }, cell.stream);
      expect(ex.answer.toolCalls).toHaveLength(1);
      expect(ex.answer.toolCalls[0]!.name).toBe('get_weather');
      expect(ex.answer.toolCalls[0]!.args).toEqual({ city: 'Paris' });
      expectNormalEnd(ex, cell, true);
      const seen = lastSeen(h, cell);
      expect(seen.toolNames).toEqual(['get_weather']);
      const choice = {
        messages: { type: 'tool', name: 'get_weather' },
        responses: { type: 'function', name: 'get_weather' },
        chat: { type: 'function', function: { name: 'get_weather' } },
        gemini: { mode: 'ANY', allowedFunctionNames: ['get_weather'] },
      };
      expect(seen.toolChoice).toMatchObject(choice[cell.upstream]);
    },
  },
  {
    name: 'full tool round trip',
    async run(h, cell) {
      const upstreamId = UPSTREAM_CALL_ID[cell.upstream];
      h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Checking.' }, { type: 'tool-call', id: upstreamId, name: 'get_weather', arguments: '{"city":"Paris"}' }] });
      const first = await ask(h, cell.door, alias(cell), { turns: [{ role: 'user', text: 'Weather in Paris?' }], tools: true }, cell.stream);
      const call = first.answer.toolCalls[0]!;
      // A chat pass-through hands the upstream's own id over untouched; translated ids fit every protocol.
      if (passthrough(cell) && cell.door === 'chat') expect(call.id).toBe(upstreamId);
      else expect(call.id).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'It is sunny.' }] });
      const second = await first.continueWith([{ id: call.id, output: 'sunny, 21C' }], cell.stream);
      expect(second.answer.texts.join('')).toBe('It is sunny.');
      const seen = lastSeen(h, cell);
      // The id the upstream made comes back to it unchanged, on the call and on its result.
      expect(seen.toolCalls).toEqual([{ id: upstreamId, name: 'get_weather' }]);
      expect(seen.toolResults).toEqual([{ id: upstreamId, text: 'sunny, 21C' }]);
      expect(seen.assistantTexts).toEqual(['Checking.']);
    },
  },
  {
    name: 'two parallel tool calls',
    async run(h, cell) {
      h.upstream.enqueue({
        kind: 'reply',
        blocks: [
          { type: 'tool-call', id: 'call_A1', name: 'get_weather', arguments: '{"city":"Paris"}' },
          { type: 'tool-call', id: 'call_B2', name: 'get_weather', arguments: '{"city":"Rome"}' },
        ],
      });
      const first = await ask(h, cell.door, alias(cell), { turns: [{ role: 'user', text: 'Paris and Rome?' }], tools: true }, cell.stream);
      expect(first.answer.toolCalls.map((c) => c.args)).toEqual([{ city: 'Paris' }, { city: 'Rome' }]);
      expect(new Set(first.answer.toolCalls.map((c) => c.id)).size).toBe(2);
      h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Both sunny.' }] });
      const [a, b] = first.answer.toolCalls;
      await first.continueWith([{ id: a!.id, output: 'Paris: sun' }, { id: b!.id, output: 'Rome: sun' }], cell.stream);
      const seen = lastSeen(h, cell);
      expect(seen.toolResults).toEqual([{ id: 'call_A1', text: 'Paris: sun' }, { id: 'call_B2', text: 'Rome: sun' }]);
    },
  },
  {
    name: 'image input, base64',
    async run(h, cell) {
      h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'A pixel.' }] });
      await ask(h, cell.door, alias(cell), { turns: [{ role: 'user', text: 'What is this?' }], image: { base64: PNG_1PX, mediaType: 'image/png' } }, cell.stream);
      const seen = lastSeen(h, cell);
      expect(seen.images).toHaveLength(1);
      expect(seen.images[0]).toContain(PNG_1PX);
      expect(seen.images[0]).toContain('image/png');
    },
  },
  {
    name: 'image input, URL',
    async run(h, cell) {
      h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'A cat.' }] });
      await ask(h, cell.door, alias(cell), { turns: [{ role: 'user', text: 'What is this?' }], image: { url: 'https://example.com/cat.png' } }, cell.stream);
      expect(lastSeen(h, cell).images).toEqual(['https://example.com/cat.png']);
    },
  },
  {
    name: 'reasoning with opaque state returned on the next turn',
    async run(h, cell) {
      h.upstream.enqueue({
        kind: 'reply',
        blocks: [
          { type: 'reasoning', text: 'Thinking about weather.', opaque: 'opaque-state-123' },
          { type: 'tool-call', id: 'call_R1', name: 'get_weather', arguments: '{"city":"Oslo"}' },
        ],
      });
      const first = await ask(h, cell.door, alias(cell), { turns: [{ role: 'user', text: 'Oslo?' }], tools: true, reasoning: true }, cell.stream);
      expect(first.answer.reasoning).toHaveLength(1);
      expect(first.answer.reasoning[0]!.text).toBe('Thinking about weather.');
      const opaque = first.answer.reasoning[0]!.opaque;
      if (cell.door === 'chat') {
        // reasoning_details carries the vendor's own bytes; a chat upstream's state is its reasoning text.
        if (cell.upstream === 'chat') expect(opaque).toBeNull();
        else expect(opaque).toBe('opaque-state-123');
      } else if (passthrough(cell)) expect(opaque).toBe('opaque-state-123');
      else expect(opaque).toMatch(/^sy1\./); // the envelope carrying the other family's state
      h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'Cold.' }] });
      await first.continueWith([{ id: first.answer.toolCalls[0]!.id, output: '-3C' }], cell.stream);
      const seen = lastSeen(h, cell);
      // Back to the family that made it, byte-exact (a chat upstream's state is its reasoning text; a
      // Gemini signature rides on the function call it signed).
      expect(seen.opaque).toEqual([cell.upstream === 'chat' ? 'Thinking about weather.' : 'opaque-state-123']);
      if (cell.upstream === 'gemini') expect(geminiSignedCalls(seen.raw)).toEqual([{ name: 'get_weather', signature: 'opaque-state-123' }]);
    },
  },
  {
    name: 'max-tokens stop',
    async run(h, cell) {
      h.upstream.enqueue({ kind: 'reply', blocks: [{ type: 'text', text: 'The first part of' }], stop: 'max_tokens' });
      const ex = await ask(h, cell.door, alias(cell), { turns: [{ role: 'user', text: 'Write a long story' }], maxTokens: 16 }, cell.stream);
      expect(ex.answer.texts.join('')).toBe('The first part of');
      expect(ex.answer.stop).toBe({ messages: 'max_tokens', responses: 'incomplete/max_output_tokens', chat: 'length' }[cell.door]);
      const raw = lastSeen(h, cell).raw;
      if (cell.upstream === 'gemini') expect((raw.generationConfig as { maxOutputTokens?: number }).maxOutputTokens).toBe(16);
      // The chat door's own field goes up as sent on its pass-through.
      else if (passthrough(cell) && cell.door === 'chat') expect(raw.max_completion_tokens).toBe(16);
      else expect(raw[{ messages: 'max_tokens', responses: 'max_output_tokens', chat: 'max_tokens' }[cell.upstream]]).toBe(16);
    },
  },
  {
    name: 'stop sequence',
    unsupported: (c) => (c.door === 'responses' ? 'the Responses protocol has no stop-sequence parameter' : undefined),
    async run(h, cell) {
      const reply =
        cell.upstream === 'messages'
          ? { kind: 'reply' as const, blocks: [{ type: 'text' as const, text: 'One, two' }], stop: 'stop_sequence' as const, stopSequence: 'three' }
          : { kind: 'reply' as const, blocks: [{ type: 'text' as const, text: 'One, two' }] };
      h.upstream.enqueue(reply);
      const ex = await ask(h, cell.door, alias(cell), { turns: [{ role: 'user', text: 'Count' }], stop: ['three'] }, cell.stream, !cell.stream);
      expect(ex.answer.texts.join('')).toBe('One, two');
      const seen = lastSeen(h, cell);
      if (cell.upstream === 'messages') {
        expect(seen.stop).toEqual(['three']);
        // Chat cannot say which sequence matched: a plain stop.
        expect(ex.answer.stop).toBe(cell.door === 'chat' ? 'stop' : 'stop_sequence');
        if (cell.door !== 'chat') expect(ex.answer.stopSequence).toBe('three');
      } else if (cell.upstream === 'chat' || cell.upstream === 'gemini') {
        expect(seen.stop).toEqual(['three']);
      } else {
        // Responses upstreams cannot stop on a sequence: dropped, and said so.
        expect(seen.raw.stop_sequences).toBeUndefined();
        if (ex.answer.headers) expect(ex.answer.headers.get('x-switchyard-warnings')).toContain('stop_sequences');
      }
    },
  },
  {
    name: 'upstream 429',
    async run(h, cell) {
      h.upstream.enqueue({ kind: 'http-error', status: 429, type: 'rate_limit_error', code: 'rate_limit_exceeded', message: 'slow down', retryAfter: '7' });
      const err = await ask(h, cell.door, alias(cell), { turns: [{ role: 'user', text: 'Hi' }] }, cell.stream).then(
        () => undefined,
        (e: unknown) => e as { status?: number; headers?: Headers; error?: unknown },
      );
      expect(err?.status).toBe(429);
      expect(err?.headers?.get('retry-after')).toBe('7');
      if (cell.door === 'messages') expect(err?.error).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
      else expect(err?.error).toMatchObject({ code: 'rate_limit_exceeded' });
    },
  },
  {
    name: 'upstream 500',
    async run(h, cell) {
      h.upstream.enqueue({ kind: 'http-error', status: 500, message: 'boom' });
      const err = await ask(h, cell.door, alias(cell), { turns: [{ role: 'user', text: 'Hi' }] }, cell.stream).then(
        () => undefined,
        (e: unknown) => e as { status?: number; error?: unknown },
      );
      expect(err?.status).toBe(500);
      if (cell.door === 'messages') expect(err?.error).toMatchObject({ type: 'error', error: { type: 'api_error' } });
      else expect(err?.error).toMatchObject({ type: 'server_error' });
    },
  },
  {
    name: 'upstream failure mid-stream',
    async run(h, cell) {
      h.upstream.enqueue({ kind: 'fail-mid-stream', blocks: [{ type: 'text', text: 'partial answer' }], message: 'upstream exploded' });
      const err = await ask(h, cell.door, alias(cell), { turns: [{ role: 'user', text: 'Hi' }] }, cell.stream).then(
        () => undefined,
        (e: unknown) => e as { status?: number; message?: string },
      );
      expect(err).toBeDefined();
      if (cell.stream) {
        // In-band: the stream had started (HTTP 200), the SDK raises the protocol's error event.
        expect(err?.message).toMatch(/exploded|error/i);
      } else {
        expect(err?.status).toBeGreaterThanOrEqual(500);
      }
    },
  },
];


/** Every door × the given upstream protocols × streamed and not. */
export function matrixCells(upstreams: readonly UpstreamProtocol[], seen?: Cell['seen']): Cell[] {
  const cells: Cell[] = [];
  for (const door of ['messages', 'responses', 'chat'] as const) for (const upstream of upstreams) for (const stream of [false, true]) cells.push({ door, upstream, stream, seen });
  return cells;
}

/** One describe per cell, every scenario in each, against the harness `start` makes (closed after). */
export function defineConformanceMatrix(title: string, start: () => Promise<Harness>, cells: readonly Cell[]): void {
  describe(title, () => {
    let h: Harness;
    beforeAll(async () => {
      h = await start();
    });
    afterAll(async () => {
      await h?.close();
    });
    beforeEach(() => {
      h.upstream.received.length = 0;
    });

    for (const cell of cells) {
      const label = `${cell.door} door → ${cell.upstream} upstream, ${cell.stream ? 'streamed' : 'not streamed'}`;
      describe(label, () => {
        for (const s of scenarios) {
          const reason = s.unsupported?.(cell);
          if (reason) {
            it(`${s.name}: unsupported (${reason})`, () => {
              expect(reason.length).toBeGreaterThan(0);
            });
          } else {
            it(s.name, () => s.run(h, cell));
          }
        }
      });
    }
  });
}
