// The OpenAI Agents SDK (`@openai/agents`, Responses API, tracing off) through the gateway's Responses
// door against each upstream protocol: an agent with a function tool, streamed and not, and a hand-off
// between two agents. Each check asserts what the run returned and what the upstream received.
import { Agent, OpenAIProvider, Runner, setTracingDisabled, tool } from '@openai/agents';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MODELS, type Harness } from '../../support/gateway-harness.js';
import { generationsSince, mark, startFrameworkHarness, UPSTREAMS, viewsSince } from './framework-harness.js';

setTracingDisabled(true);

let h: Harness;
let runner: Runner;
beforeAll(async () => {
  h = await startFrameworkHarness();
  runner = new Runner({
    modelProvider: new OpenAIProvider({ baseURL: h.url + '/v1', apiKey: 'caller-key', useResponses: true }),
    tracingDisabled: true,
  });
});
afterAll(async () => {
  await h?.close();
});

function commandAgent(model: string, calls: string[]) {
  return new Agent({
    name: 'operator',
    instructions: 'You run shell commands for the user.',
    model,
    tools: [
      tool({
        name: 'run_command',
        description: 'Run a shell command and return what it printed',
        parameters: z.object({ command: z.string() }),
        execute: async ({ command }) => {
          calls.push(command);
          return 'printed:' + command.split(' ')[1];
        },
      }),
    ],
  });
}

describe.each(UPSTREAMS)('OpenAI Agents SDK over the %s upstream', (upstream) => {
  const model = MODELS[upstream].alias;

  it.each([false, true])('an agent with a function tool (streamed: %s)', async (stream) => {
    const calls: string[] = [];
    const agent = commandAgent(model, calls);
    const from = mark(h);
    let output: unknown;
    if (stream) {
      const result = await runner.run(agent, 'Prove that tools work', { stream: true });
      let deltas = '';
      for await (const ev of result) {
        if (ev.type === 'raw_model_stream_event' && ev.data.type === 'output_text_delta') deltas += ev.data.delta;
      }
      await result.completed;
      output = result.finalOutput;
      expect(deltas).toBe('Tool said: printed:switchyard-ok');
    } else {
      const result = await runner.run(agent, 'Prove that tools work');
      output = result.finalOutput;
      expect(result.state.usage.inputTokens).toBeGreaterThan(0);
    }
    expect(output).toBe('Tool said: printed:switchyard-ok');
    expect(calls).toEqual(['echo switchyard-ok > switchyard-proof.txt && cat switchyard-proof.txt']);
    const views = viewsSince(h, from, upstream);
    expect(views).toHaveLength(2);
    for (const v of views) {
      expect(v.system).toContain('You run shell commands for the user.');
      expect(v.toolNames).toEqual(['run_command']);
      // Pass-through keeps the caller's mode; the translation lane picks its own upstream mode.
      if (upstream === 'responses') expect(v.stream).toBe(stream);
    }
    expect(views[1]!.toolResults).toEqual([{ id: views[1]!.toolCalls[0]!.id, text: 'printed:switchyard-ok' }]);
    expect(views[1]!.userTexts).toEqual(['Prove that tools work']);
  });

  it('a hand-off from a triage agent to a specialist', async () => {
    const calls: string[] = [];
    const specialist = commandAgent(model, calls);
    specialist.handoffDescription = 'Runs shell commands';
    const triage = new Agent({ name: 'triage', instructions: 'Route the user to the right agent.', model, handoffs: [specialist] });
    const from = mark(h);
    // Triage hands off; the specialist then runs the command; the default model reports its output.
    h.upstream.enqueue(
      { kind: 'reply', blocks: [{ type: 'tool-call', name: 'transfer_to_operator', arguments: '{}' }] },
      { kind: 'reply', blocks: [{ type: 'tool-call', name: 'run_command', arguments: '{"command":"echo switchyard-ok"}' }] },
    );
    const result = await runner.run(triage, 'Prove that tools work');
    expect(result.lastAgent?.name).toBe('operator');
    expect(result.finalOutput).toBe('Tool said: printed:switchyard-ok');
    expect(calls).toEqual(['echo switchyard-ok']);
    const sent = generationsSince(h, from, upstream);
    const views = viewsSince(h, from, upstream);
    expect(views).toHaveLength(3);
    expect(views[0]!.system).toContain('Route the user to the right agent.');
    expect(views[0]!.toolNames).toEqual(['transfer_to_operator']);
    // After the hand-off the specialist's instructions and tools are sent, with the hand-off's result.
    expect(views[1]!.system).toContain('You run shell commands for the user.');
    expect(views[1]!.system).not.toContain('Route the user');
    expect(views[1]!.toolNames).toEqual(['run_command']);
    expect(views[1]!.toolCalls.map((c) => c.name)).toEqual(['transfer_to_operator']);
    expect(views[1]!.toolResults[0]!.text).toContain('operator');
    expect(JSON.stringify(sent[2]!.body)).toContain('printed:switchyard-ok');
  });
});
