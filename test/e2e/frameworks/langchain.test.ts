// LangChain JS through the gateway: `ChatAnthropic` on the Messages door, `ChatOpenAI` with
// `useResponsesApi: true` on the Responses door and `ChatOpenAI` in its default mode on the Chat
// Completions door, against each upstream protocol: invoke, stream, and a
// bindTools round trip (the tool's result sent back as a ToolMessage). LangSmith tracing stays off
// (it is only on when LANGSMITH_TRACING is set, which the test clears).
import { ChatAnthropic } from '@langchain/anthropic';
import { AIMessageChunk, HumanMessage, type AIMessage, type BaseMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { ChatOpenAI } from '@langchain/openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MODELS, type Harness, type UpstreamProtocol } from '../../support/gateway-harness.js';
import { mark, REASONING_TEXT, startFrameworkHarness, UPSTREAMS, viewsSince } from './framework-harness.js';

for (const name of ['LANGSMITH_TRACING', 'LANGCHAIN_TRACING_V2', 'LANGCHAIN_TRACING']) delete process.env[name];

let h: Harness;
beforeAll(async () => {
  h = await startFrameworkHarness();
});
afterAll(async () => {
  await h?.close();
});

const runCommand = tool(async ({ command }) => 'printed:' + command.split(' ')[1], {
  name: 'run_command',
  description: 'Run a shell command and return what it printed',
  schema: z.object({ command: z.string() }),
});

type Chat = ChatAnthropic | ChatOpenAI;

const CHAT_MODE = 'ChatOpenAI (Chat Completions)';

const clients: { name: string; make: (upstream: UpstreamProtocol) => Chat }[] = [
  {
    name: 'ChatAnthropic',
    make: (upstream) => new ChatAnthropic({ model: MODELS[upstream].alias, anthropicApiUrl: h.url, apiKey: 'caller-key', maxRetries: 0, maxTokens: 1024 }),
  },
  {
    name: 'ChatOpenAI (useResponsesApi)',
    make: (upstream) =>
      new ChatOpenAI({ model: MODELS[upstream].alias, useResponsesApi: true, apiKey: 'caller-key', maxRetries: 0, configuration: { baseURL: h.url + '/v1' } }),
  },
  {
    name: CHAT_MODE,
    make: (upstream) => new ChatOpenAI({ model: MODELS[upstream].alias, apiKey: 'caller-key', maxRetries: 0, configuration: { baseURL: h.url + '/v1' } }),
  },
];

describe.each(UPSTREAMS)('LangChain over the %s upstream', (upstream) => {
  describe.each(clients)('$name', ({ name, make }) => {
    it('invoke: text and usage', async () => {
      const from = mark(h);
      const msg = await make(upstream).invoke('hello there');
      expect(msg.text).toBe('You said: hello there');
      expect(msg.usage_metadata?.input_tokens).toBeGreaterThan(0);
      expect(msg.usage_metadata?.output_tokens).toBeGreaterThan(0);
      expect(viewsSince(h, from, upstream).map((v) => v.userTexts)).toEqual([['hello there']]);
    });

    it('stream: chunks that add up to the answer', async () => {
      const from = mark(h);
      let full: AIMessageChunk | undefined;
      let chunks = 0;
      for await (const chunk of await make(upstream).stream('streamed hello')) {
        full = full === undefined ? chunk : full.concat(chunk);
        chunks++;
      }
      expect(chunks).toBeGreaterThan(1);
      expect(full?.text).toBe('You said: streamed hello');
      expect(full?.usage_metadata?.output_tokens).toBeGreaterThan(0);
      expect(viewsSince(h, from, upstream).map((v) => v.userTexts)).toEqual([['streamed hello']]);
    });

    it('bindTools: a tool call, its ToolMessage sent back, the final answer', async () => {
      const model = make(upstream).bindTools([runCommand]);
      const from = mark(h);
      const history: BaseMessage[] = [new HumanMessage('Prove that tools work')];
      const first = (await model.invoke(history)) as AIMessage;
      expect(first.tool_calls).toEqual([expect.objectContaining({ name: 'run_command', args: { command: expect.stringContaining('echo switchyard-ok') } })]);
      history.push(first, await runCommand.invoke(first.tool_calls![0]!));
      if (name === CHAT_MODE && upstream === 'gemini') {
        // ChatOpenAI in Chat Completions mode keeps neither reasoning_content nor reasoning_details, so the
        // Gemini call's thought signature is lost and a signature-checking Gemini refuses the second turn
        // (a client that echoes reasoning_details keeps it: test/e2e/chat-reasoning-loop.test.ts).
        await expect(model.invoke(history)).rejects.toThrow(/thought_signature/);
        return;
      }
      const second = await model.invoke(history);
      expect(second.text).toBe('Tool said: printed:switchyard-ok');
      const views = viewsSince(h, from, upstream);
      expect(views).toHaveLength(2);
      expect(views[0]!.toolNames).toEqual(['run_command']);
      expect(views[1]!.toolResults).toEqual([{ id: views[1]!.toolCalls[0]!.id, text: 'printed:switchyard-ok' }]);
      expect(views[1]!.toolCalls.map((c) => c.name)).toEqual(['run_command']);
      // The first answer's reasoning went back with it, in the upstream's own form.
      // The first answer's reasoning went back with it, in the upstream's own form. ChatOpenAI keeps no
      // opaque reasoning unless it asks for `include: ['reasoning.encrypted_content']`, so an Anthropic
      // upstream (which needs the signature) gets none from it: the gateway drops what it cannot sign.
      const raw = JSON.stringify(views[1]!.raw);
      if (name === CHAT_MODE) expect(raw).not.toContain(REASONING_TEXT); // it keeps no reasoning at all
      else if (name.startsWith('ChatOpenAI') && upstream === 'messages') expect(raw).not.toContain('"thinking"');
      else if (name.startsWith('ChatOpenAI') && upstream === 'gemini') expect(raw).not.toContain('"thought":true');
      else expect(raw).toContain(REASONING_TEXT);
    });
  });
});
