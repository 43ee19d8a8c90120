// Non-streamed Message body → IrResult (messages.md §9), with the same mappings as the stream decoder:
// server-tool and unknown blocks skipped, thinking kept byte-exact as the carry, custom tools unwrapped.
import { GatewayError } from '../../errors.js';
import { toCallerId } from '../../ir/tool-ids.js';
import { ToolLookup } from '../../ir/tool-names.js';
import type { IrRequest, IrResult, OutputPart, ToolCallPart } from '../../ir/types.js';
import type { UpstreamErrorBodyWire, UpstreamMessageWire } from '../../protocols/anthropic-messages/upstream-response.js';
import { kindForErrorType } from './error-kind.js';
import { mapStopReason } from './map-finish.js';
import { mapUsage } from './map-usage.js';
import { ANTHROPIC_TOOL_NAME_MAX, customInputText } from './tool-lookup.js';

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

export function decodeMessagesResult(json: unknown, req: IrRequest): IrResult {
  if (!json || typeof json !== 'object') throw new GatewayError('api_error', 'upstream sent a malformed Messages body');
  const body = json as UpstreamMessageWire & UpstreamErrorBodyWire;
  if (body.type === 'error') {
    const error = body.error && typeof body.error === 'object' ? body.error : undefined;
    const type = str(error?.type) || undefined;
    const message = str(error?.message) || type || 'upstream error';
    throw new GatewayError(kindForErrorType(type, message) ?? 'api_error', message, { upstreamRequestId: body.request_id });
  }
  if (!Array.isArray(body.content)) throw new GatewayError('api_error', 'upstream sent a Message without a content array');
  const id = str(body.id);
  const content: OutputPart[] = [];
  let tools: ToolLookup | undefined;
  for (const b of body.content) {
    if (!b || typeof b !== 'object') continue;
    switch (b.type) {
      case 'text':
        content.push({ type: 'text', text: str(b.text) });
        break;
      case 'thinking': {
        const thinking = str(b.thinking);
        content.push({ type: 'reasoning', text: thinking, carry: { family: 'anthropic', block: { type: 'thinking', thinking, signature: str(b.signature) } } });
        break;
      }
      case 'redacted_thinking':
        content.push({ type: 'reasoning', text: '', carry: { family: 'anthropic', block: { type: 'redacted_thinking', data: str(b.data) } } });
        break;
      case 'tool_use': {
        tools ??= new ToolLookup(req.tools, ANTHROPIC_TOOL_NAME_MAX);
        const tool = tools.resolve(str(b.name));
        const input = b.input ?? {};
        const part: ToolCallPart = {
          type: 'tool-call',
          id: toCallerId(str(b.id) || `call_${id}_${content.length}`),
          name: tool.name,
          arguments: tool.kind === 'custom' ? customInputText(input) : JSON.stringify(input),
          kind: tool.kind,
        };
        if (tool.namespace !== undefined) part.namespace = tool.namespace;
        content.push(part);
        break;
      }
      default:
        // server_tool_use, *_tool_result, container_upload, newer block types
        break;
    }
  }
  return {
    id,
    model: str(body.model),
    content,
    finish: mapStopReason(body.stop_reason, body.stop_sequence),
    usage: mapUsage(body.usage),
  };
}
