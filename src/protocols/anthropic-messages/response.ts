// What the gateway answers on `POST /v1/messages` (messages.md §9–§12): the Message object and the
// blocks and usage it carries. Only the members the gateway emits are spelled out.
import { Type, type Static } from '@sinclair/typebox';
import { Nullable } from './common.js';

export const StopReason = Type.Union([
  Type.Literal('end_turn'),
  Type.Literal('max_tokens'),
  Type.Literal('stop_sequence'),
  Type.Literal('tool_use'),
  Type.Literal('pause_turn'),
  Type.Literal('refusal'),
  Type.Literal('model_context_window_exceeded'),
]);

export const TextOutputBlock = Type.Object({ type: Type.Literal('text'), text: Type.String() });
export const ThinkingOutputBlock = Type.Object({ type: Type.Literal('thinking'), thinking: Type.String(), signature: Type.String() });
export const RedactedThinkingOutputBlock = Type.Object({ type: Type.Literal('redacted_thinking'), data: Type.String() });
export const ToolUseOutputBlock = Type.Object({
  type: Type.Literal('tool_use'),
  id: Type.String(),
  name: Type.String(),
  input: Type.Record(Type.String(), Type.Unknown()),
});

export const OutputBlock = Type.Union([TextOutputBlock, ThinkingOutputBlock, RedactedThinkingOutputBlock, ToolUseOutputBlock]);

export const MessageUsage = Type.Object({
  input_tokens: Type.Integer({ minimum: 0 }),
  cache_creation_input_tokens: Type.Integer({ minimum: 0 }),
  cache_read_input_tokens: Type.Integer({ minimum: 0 }),
  output_tokens: Type.Integer({ minimum: 0 }),
  output_tokens_details: Type.Optional(Type.Object({ thinking_tokens: Type.Integer({ minimum: 0 }) })),
});

export const MessageResponse = Type.Object({
  id: Type.String(),
  type: Type.Literal('message'),
  role: Type.Literal('assistant'),
  model: Type.String(),
  content: Type.Array(OutputBlock),
  /** Null only inside `message_start`. */
  stop_reason: Nullable(StopReason),
  stop_sequence: Nullable(Type.String()),
  usage: MessageUsage,
});

export const ErrorBody = Type.Object({
  type: Type.Literal('error'),
  error: Type.Object({ type: Type.String(), message: Type.String() }),
  request_id: Type.Optional(Type.String()),
});

export type StopReasonValue = Static<typeof StopReason>;
export type OutputBlockBody = Static<typeof OutputBlock>;
export type ThinkingOutputBody = Static<typeof ThinkingOutputBlock>;
export type RedactedThinkingOutputBody = Static<typeof RedactedThinkingOutputBlock>;
export type MessageUsageBody = Static<typeof MessageUsage>;
export type MessageResponseBody = Static<typeof MessageResponse>;
