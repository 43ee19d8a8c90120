// One tool call as a Chat `tool_calls` entry: a function call's arguments are JSON text, a custom
// tool's input its free text (chat-completions.md §2).
import type { ToolCallPart } from '../../ir/types.js';

export function toolCallJson(call: ToolCallPart): string {
  const id = JSON.stringify(call.id);
  const name = JSON.stringify(call.name);
  if (call.kind === 'custom') return '{"id":' + id + ',"type":"custom","custom":{"name":' + name + ',"input":' + JSON.stringify(call.arguments) + '}}';
  return '{"id":' + id + ',"type":"function","function":{"name":' + name + ',"arguments":' + JSON.stringify(call.arguments === '' ? '{}' : call.arguments) + '}}';
}
