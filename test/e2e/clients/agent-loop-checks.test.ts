// The checks behind the real-client tests must not be vacuous: a recorded good loop passes, and each kind of gateway
// mistake is reported as the FIRST problem, naming the event or field. Synthetic evidence, no processes.
import { describe, expect, it } from 'vitest';
import { findProblems, type AgentLoopEvidence } from '../../support/clients/agent-loop-checks.js';
import type { GatewayExchange } from '../../support/clients/recording-proxy.js';
import type { ReceivedRequest } from '../../support/scripted-upstream/index.js';

const sse = (frames: [string, object][]) => frames.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join('');
const COMMAND = { command: 'echo switchyard-ok > switchyard-proof.txt && cat switchyard-proof.txt' };

function exchange(requestBody: object, responseText: string, status = 200): GatewayExchange {
  return {
    method: 'POST',
    url: '/v1/messages?beta=true',
    requestHeaders: {},
    requestBody,
    status,
    responseHeaders: { 'content-type': status === 200 ? 'text/event-stream' : 'application/json' },
    responseText,
    startedAt: 0,
    durationMs: 1,
  };
}

function upstreamRequest(body: object): ReceivedRequest {
  return { protocol: 'responses', method: 'POST', path: '/v1/responses', url: '/v1/responses', headers: {}, body, stream: true };
}

/** Claude Code → /v1/messages → Responses upstream, as a correct gateway produces it. */
function goodEvidence(): AgentLoopEvidence {
  const user = { role: 'user', content: [{ type: 'text', text: 'write the proof file' }] };
  const assistant = { role: 'assistant', content: [{ type: 'thinking', thinking: 'plan', signature: 'sy1.envelope' }, { type: 'tool_use', id: 'call_U1', name: 'Bash', input: COMMAND }] };
  const result = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_U1', content: 'switchyard-ok' }] };
  const answer1 = sse([
    ['message_start', { type: 'message_start', message: { id: 'msg_1', usage: { input_tokens: 1, output_tokens: 1 } } }],
    ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }],
    ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'plan' } }],
    ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sy1.envelope' } }],
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    ['content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'call_U1', name: 'Bash', input: {} } }],
    ['content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: JSON.stringify(COMMAND) } }],
    ['content_block_stop', { type: 'content_block_stop', index: 1 }],
    ['message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 5 } }],
    ['message_stop', { type: 'message_stop' }],
  ]);
  const answer2 = sse([
    ['message_start', { type: 'message_start', message: { id: 'msg_2', usage: { input_tokens: 1, output_tokens: 1 } } }],
    ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
    ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Tool said: switchyard-ok' } }],
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 5 } }],
    ['message_stop', { type: 'message_stop' }],
  ]);
  const tools = [{ type: 'function', name: 'Bash', parameters: {} }];
  const up1 = upstreamRequest({ model: 'gpt-upstream-1', tools, include: ['reasoning.encrypted_content'], input: [{ role: 'user', content: 'write the proof file' }] });
  const up2 = upstreamRequest({
    model: 'gpt-upstream-1',
    tools,
    include: ['reasoning.encrypted_content'],
    input: [
      { role: 'user', content: 'write the proof file' },
      { type: 'reasoning', summary: [], encrypted_content: 'opaque-responses-1' },
      { type: 'function_call', call_id: 'call_U1', name: 'Bash', arguments: JSON.stringify(COMMAND) },
      { type: 'function_call_output', call_id: 'call_U1', output: 'switchyard-ok' },
    ],
  });
  return {
    client: 'claude-code',
    upstreamProtocol: 'responses',
    alias: 'via-responses',
    upstreamModel: 'gpt-upstream-1',
    route: 'Claude Code → POST /v1/messages → via-responses → OpenAI Responses upstream (translation lane)',
    run: { command: 'claude', args: [], exitCode: 0, signal: null, timedOut: false, stdout: '', stderr: '', durationMs: 1 },
    finalAnswer: 'Tool said: switchyard-ok',
    exchanges: [exchange({ tools: [{ name: 'Bash' }], messages: [user] }, answer1), exchange({ tools: [{ name: 'Bash' }], messages: [user, assistant, result] }, answer2)],
    upstream: [up1, up2],
    upstreamTurns: [
      {
        request: up1,
        blocks: [
          { type: 'reasoning', text: 'plan', opaque: 'opaque-responses-1' },
          { type: 'tool-call', id: 'call_U1', name: 'Bash', arguments: JSON.stringify(COMMAND) },
        ],
      },
      { request: up2, blocks: [{ type: 'text', text: 'Tool said: switchyard-ok' }] },
    ],
    egress: [],
    proofFile: 'switchyard-ok\n',
  };
}

type Body = { input: Record<string, unknown>[] };

describe('agent-loop checks', () => {
  it('find nothing wrong in a correct loop', () => {
    expect(findProblems(goodEvidence())).toEqual([]);
  });

  it('name a 4xx from the gateway first, with its body', () => {
    const ev = goodEvidence();
    ev.exchanges[0] = exchange(ev.exchanges[0]!.requestBody as object, '{"type":"error","error":{"type":"invalid_request_error","message":"context_management: unknown field"}}', 400);
    ev.exchanges.length = 1;
    ev.upstream.length = 0;
    const problems = findProblems(ev);
    expect(problems[0]).toMatch(/^gateway answered POST \/v1\/messages\?beta=true \(exchange #1\) with HTTP 400: .*context_management/);
  });

  it('name a stream that ends without its terminal event', () => {
    const ev = goodEvidence();
    ev.exchanges[0]!.responseText = ev.exchanges[0]!.responseText.replace(/event: message_stop\n.*\n\n$/, '');
    expect(findProblems(ev)[0]).toMatch(/gateway answer 1 ended without message_stop/);
  });

  it('name a tool result that reaches the upstream under the wrong id', () => {
    const ev = goodEvidence();
    (ev.upstream[1]!.body as Body).input[3]!.call_id = 'toolu_rewritten';
    expect(findProblems(ev)[0]).toMatch(/upstream request 2 tool result id is "toolu_rewritten", but the upstream issued the call as "call_U1"/);
  });

  it('name reasoning state that is not returned to its own family', () => {
    const ev = goodEvidence();
    (ev.upstream[1]!.body as Body).input.splice(1, 1);
    expect(findProblems(ev)[0]).toMatch(/upstream request 2 did not return the reasoning state .* "opaque-responses-1"/);
  });

  it('name a 4xx on a side call (count_tokens) even when the loop worked', () => {
    const ev = goodEvidence();
    ev.exchanges.push({ ...exchange({}, '{"type":"error"}', 404), url: '/v1/messages/count_tokens?beta=true' });
    expect(findProblems(ev)).toEqual([expect.stringMatching(/count_tokens\?beta=true \(exchange #3\) with HTTP 404/)]);
  });

  it('name a client key that travels upstream', () => {
    const ev = goodEvidence();
    ev.clientKey = 'sk-switchyard-client-tests-0001';
    ev.upstream[0]!.headers = { authorization: 'Bearer sk-switchyard-client-tests-0001' };
    expect(findProblems(ev)[0]).toMatch(/upstream request 1 headers carry the client's gateway key/);
  });

  it('name an attempt to leave loopback', () => {
    const ev = goodEvidence();
    ev.egress.push({ method: 'CONNECT', target: 'api.anthropic.com:443' });
    expect(findProblems(ev)).toEqual(['Claude Code tried to leave loopback: CONNECT api.anthropic.com:443']);
  });
});
