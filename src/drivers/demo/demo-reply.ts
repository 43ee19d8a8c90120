// The in-process `demo` provider: a demonstration upstream, not a model. It answers from the request
// alone (no network) so both front doors can be tried in the first minute: it echoes the last user
// text, calls a tool when asked to ("call <tool name>"), and reports what it received from a tool.
import { estimateInputTokens } from '../../ir/estimate-tokens.js';
import type { IrEvent, IrRequest, ToolDefinition, Usage } from '../../ir/types.js';

export function demoEvents(req: IrRequest, responseId: string): IrEvent[] {
  const events: IrEvent[] = [];
  const last = req.turns[req.turns.length - 1];
  let lastText = '';
  let toolOutput: string | undefined;
  if (last?.role === 'user') {
    for (const p of last.parts) {
      if (p.type === 'text') lastText += (lastText ? '\n' : '') + p.text;
      else if (p.type === 'tool-result') toolOutput = p.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('');
    }
  }
  events.push({ type: 'response-start', id: responseId, model: 'switchyard-demo' });
  let block = 0;
  let outputWords = 0;
  if (req.reasoning && req.reasoning.mode !== 'disabled' && req.reasoning.effort !== 'none') {
    const text = 'The demo upstream does not think; this is a sample reasoning block.';
    events.push({ type: 'reasoning-start', block });
    events.push({ type: 'reasoning-delta', block, text });
    events.push({ type: 'reasoning-end', block, carry: { family: 'chat', text } });
    outputWords += 12;
    block++;
  }
  const tool = toolOutput === undefined ? requestedTool(lastText, req.tools) : undefined;
  let reason: 'end_turn' | 'max_tokens' | 'tool_use' = 'end_turn';
  if (tool) {
    const args = tool.kind === 'custom' ? 'demo input' : '{}';
    events.push({ type: 'tool-call-start', block, id: `call_demo_${responseId.slice(-8)}_${block}`, name: tool.name, kind: tool.kind, namespace: tool.namespace });
    events.push({ type: 'tool-call-delta', block, argumentsDelta: args });
    events.push({ type: 'tool-call-end', block, arguments: args });
    reason = 'tool_use';
    outputWords += 4;
  } else {
    const text =
      toolOutput !== undefined
        ? `The demo upstream received this tool result: ${toolOutput}`
        : `Hello from Switchyard's demo upstream (a demonstration, not a model). You said: ${lastText || '(nothing)'}`;
    let words = text.split(/(?<= )/);
    const limit = req.maxOutputTokens;
    if (limit !== undefined && words.length > limit) {
      words = words.slice(0, limit);
      reason = 'max_tokens';
    }
    events.push({ type: 'text-start', block });
    for (const w of words) events.push({ type: 'text-delta', block, text: w });
    events.push({ type: 'text-end', block });
    outputWords += words.length;
  }
  const usage: Usage = {
    inputTokens: estimateInputTokens(req),
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    outputTokens: outputWords,
    reasoningTokens: 0,
  };
  events.push({ type: 'usage', usage });
  events.push({ type: 'finish', finish: { reason, raw: reason } });
  return events;
}

function requestedTool(text: string, tools: ToolDefinition[]): ToolDefinition | undefined {
  const m = /\bcall ([A-Za-z0-9_.-]+)/i.exec(text);
  if (!m) return undefined;
  return tools.find((t) => t.name.toLowerCase() === m[1]!.toLowerCase());
}
