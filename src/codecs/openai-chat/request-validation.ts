// The compiled create-body check (compiled once, at module load; a failure worded as the OpenAI API
// words it: codecs/openai-check-errors.ts), then the rules that need the whole request, in one walk
// over `messages` and one over `tools`, each failure with its `param`:
//
//   messages                  a non-empty array                                     (empty_array)
//   messages[i]               a tool message answers a call of the assistant message before it
//   messages[k]               an assistant message's calls are all answered before the next message
//                             that is not a tool result (an unanswered call would be a tool_use
//                             without its result at Anthropic, a dangling call elsewhere)
//   tools[i].function.parameters   `type: "object"`                                (invalid_function_parameters)
//   tools[i]                  names unique
//   tool_choice               names an offered tool
//   metadata                  keys of at most 64 characters
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { GatewayError } from '../../errors.js';
import { ChatCompletionsRequest, type ChatCompletionsRequestBody, type ChatMessageParamBody } from '../../protocols/openai-chat/door-request.js';
import { throwCheckFailure } from '../openai-check-errors.js';

const check = TypeCompiler.Compile(ChatCompletionsRequest);

export function validateRequest(body: unknown): ChatCompletionsRequestBody {
  if (!check.Check(body)) throwCheckFailure(check, body);
  checkRules(body);
  return body;
}

function fail(param: string, code: string | null, message: string): never {
  throw new GatewayError('invalid_request', message, code === null ? { param } : { param, code });
}

function checkRules(body: ChatCompletionsRequestBody): void {
  if (body.messages.length === 0) {
    fail('messages', 'empty_array', "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.");
  }
  checkCalls(body.messages);
  const names = new Set<string>();
  const tools = body.tools ?? [];
  for (let i = 0; i < tools.length; i++) {
    const t = tools[i]!;
    const name = t.type === 'function' ? t.function.name : t.custom.name;
    if (names.has(name)) fail(`tools[${i}]`, null, `Invalid 'tools': duplicate function name '${name}'.`);
    names.add(name);
    if (t.type === 'function') {
      const params = t.function.parameters as Record<string, unknown> | null | undefined;
      if (params != null && params.type !== undefined && params.type !== 'object') {
        fail(
          `tools[${i}].function.parameters`,
          'invalid_function_parameters',
          `Invalid schema for function '${name}': schema must be a JSON Schema of 'type: "object"', got 'type: "${String(params.type)}"'.`,
        );
      }
    }
  }
  for (const f of body.functions ?? []) names.add(f.name);
  const choice = body.tool_choice;
  if (choice != null && typeof choice === 'object') {
    const named = choice.type === 'allowed_tools' ? choice.allowed_tools.tools : [choice];
    for (const n of named) {
      const name = n.type === 'function' ? n.function.name : n.custom.name;
      if (!names.has(name)) fail('tool_choice', null, `Invalid value for 'tool_choice': tool '${name}' is not one of the tools in 'tools'.`);
    }
  }
  const fc = body.function_call;
  if (fc != null && typeof fc === 'object' && !names.has(fc.name)) {
    fail('function_call', null, `Invalid value for 'function_call': function '${fc.name}' is not one of the functions in 'functions'.`);
  }
  if (body.metadata != null) {
    for (const key in body.metadata) {
      if (key.length > 64) fail('metadata', 'string_above_max_length', `Invalid 'metadata': key '${key.slice(0, 64)}…' is too long. Expected keys with maximum length 64, but got a key with length ${key.length} instead.`);
    }
  }
}

/** Tool results answer the calls right before them, and every call gets its result. */
function checkCalls(messages: readonly ChatMessageParamBody[]): void {
  // Call id → index of the assistant message that made it, while unanswered.
  let open = new Map<string, number>();
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === 'tool') {
      if (!open.delete(m.tool_call_id)) {
        fail(
          `messages[${i}].tool_call_id`,
          null,
          `Invalid parameter: messages with role 'tool' must be a response to a preceding message with 'tool_calls' (no call with id '${m.tool_call_id}' is waiting for its result).`,
        );
      }
      continue;
    }
    if (m.role === 'function') continue;
    if (open.size > 0) unanswered(open);
    if (m.role === 'assistant' && m.tool_calls != null) {
      open = new Map();
      for (const call of m.tool_calls) open.set(call.id, i);
    }
  }
  if (open.size > 0) unanswered(open);
}

function unanswered(open: Map<string, number>): never {
  const [, at] = open.entries().next().value as [string, number];
  fail(
    `messages[${at}].tool_calls`,
    null,
    `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open.keys()].join(', ')}`,
  );
}
