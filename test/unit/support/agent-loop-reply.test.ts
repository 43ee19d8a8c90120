// agentLoopReply: what the default "model" does for each client's request shape.
import { describe, expect, it } from 'vitest';
import { agentLoopReply, DEFAULT_COMMAND, type ReceivedRequest, type Reply } from '../../support/scripted-upstream/index.js';

const req = (protocol: ReceivedRequest['protocol'], body: unknown): ReceivedRequest => ({
  protocol,
  method: 'POST',
  path: '/',
  url: '/',
  headers: {},
  body,
  stream: true,
});

function blocksOf(reply: Reply) {
  if (reply.kind !== 'reply') throw new Error(`unexpected ${reply.kind}`);
  return reply.blocks;
}

const bashTool = {
  name: 'Bash',
  input_schema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { command: { type: 'string' }, description: { type: 'string' } }, required: ['command'] },
};
const execCommand = {
  type: 'function',
  name: 'exec_command',
  strict: false,
  parameters: { type: 'object', properties: { cmd: { type: 'string' }, workdir: { type: 'string' }, login: { type: 'boolean' } }, required: ['cmd'] },
};

describe('agentLoopReply', () => {
  it('Claude Code: reasons, then calls Bash with {command, description}', () => {
    const body = { tools: [{ name: 'Read', input_schema: { type: 'object' } }, bashTool], messages: [{ role: 'user', content: [{ type: 'text', text: 'Prove it' }] }] };
    const [reasoning, call] = blocksOf(agentLoopReply(req('messages', body)));
    expect(reasoning).toMatchObject({ type: 'reasoning', opaque: 'opaque-messages-1' });
    expect(call).toMatchObject({ type: 'tool-call', name: 'Bash' });
    expect(JSON.parse((call as { arguments: string }).arguments)).toEqual({ command: DEFAULT_COMMAND, description: expect.any(String) });
  });

  it('Claude Code second turn: quotes the tool result', () => {
    const body = {
      tools: [bashTool],
      messages: [
        { role: 'user', content: 'Prove it' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'switchyard-ok\n', is_error: false }] },
      ],
    };
    expect(blocksOf(agentLoopReply(req('messages', body)))).toEqual([{ type: 'text', text: 'Tool said: switchyard-ok' }]);
  });

  it('Codex: skips built-ins and namespaces, calls exec_command with cmd as a string', () => {
    const body = {
      tools: [{ type: 'namespace', name: 'multi_agent_v1', tools: [] }, { type: 'web_search' }, execCommand, { type: 'custom', name: 'apply_patch' }],
      input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Prove it' }] }],
    };
    const [reasoning, call] = blocksOf(agentLoopReply(req('responses', body), { command: 'echo hi' }));
    expect(reasoning).toMatchObject({ opaque: 'opaque-responses-1' });
    expect(call).toMatchObject({ name: 'exec_command', arguments: JSON.stringify({ cmd: 'echo hi' }) });
  });

  it('Codex second turn: quotes the function_call_output', () => {
    const body = {
      tools: [execCommand],
      input: [
        { role: 'user', content: 'Prove it' },
        { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'opaque-responses-1' },
        { type: 'function_call', call_id: 'call_1', name: 'exec_command', arguments: '{}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'Process exited with code 0\nOutput:\nswitchyard-ok\n' },
      ],
    };
    expect(blocksOf(agentLoopReply(req('responses', body)))).toEqual([{ type: 'text', text: 'Tool said: Process exited with code 0\nOutput:\nswitchyard-ok' }]);
  });

  it('shell-style tools get a command array; the opaque counter follows the number of tool results', () => {
    const shell = { type: 'function', function: { name: 'shell', parameters: { type: 'object', properties: { command: { type: 'array', items: { type: 'string' } } }, required: ['command'] } } };
    const body = {
      tools: [shell],
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'shell', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: 'done' },
        { role: 'user', content: 'again' },
      ],
    };
    const [reasoning, call] = blocksOf(agentLoopReply(req('chat', body)));
    expect(reasoning).toMatchObject({ opaque: 'opaque-chat-2' });
    expect(JSON.parse((call as { arguments: string }).arguments)).toEqual({ command: ['bash', '-lc', DEFAULT_COMMAND] });
  });

  it('falls back to the first tool, filling its required fields', () => {
    const body = { tools: [{ name: 'run', input_schema: { type: 'object', properties: { script: { type: 'string' }, n: { type: 'integer' } }, required: ['script', 'n'] } }], messages: [{ role: 'user', content: 'go' }] };
    const [, call] = blocksOf(agentLoopReply(req('messages', body)));
    expect(JSON.parse((call as { arguments: string }).arguments)).toEqual({ script: DEFAULT_COMMAND, n: 1 });
  });

  it('without tools answers in text, or in JSON when a schema is requested', () => {
    expect(blocksOf(agentLoopReply(req('responses', { input: 'Hello' })))).toEqual([{ type: 'text', text: 'You said: Hello' }]);
    const title = { messages: [{ role: 'user', content: 'x' }], output_config: { format: { type: 'json_schema', schema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] } } } };
    const [text] = blocksOf(agentLoopReply(req('messages', title)));
    expect(JSON.parse((text as { text: string }).text)).toEqual({ title: expect.any(String) });
  });
});
