// The Responses API's rules beyond the wire shape, in one table. The compiled TypeBox check
// (protocols/openai-responses) already refuses what a shape can say: unknown item, part and tool
// types, function/custom names outside `^[a-zA-Z0-9_-]+$` or over 64 characters, property types JSON
// Schema does not define, `max_output_tokens` outside 16..1e6, temperature outside 0..2, top_p outside
// 0..1, metadata over 16 keys or values over 512 characters, unknown `include` values, reasoning
// efforts and summaries. What needs more than one field is here, in one walk over `input` and one
// over `tools`, each failure with its `param` and the API's `code`:
//
//   input                        a non-empty array                                (empty_array)
//   input[i].content             a user message says something                    (empty_string / empty_array)
//   input[i].call_id             a tool output answers an earlier call of this request, unless the
//                                conversation continues a stored one (previous_response_id / conversation)
//   input[k].call_id             a call is answered before the next user message, and a call with no
//                                output at all is refused too (mapping.md §15.51), unless an item
//                                reference the gateway left for OpenAI could be its output
//   input[i].…image_url          data URLs: png / jpeg / webp / gif, base64 payload (decode-content.ts)
//   tools[i].parameters          `type: "object"`                                  (invalid_function_parameters)
//   tools[i].name                unique (within a namespace: unique in it)
//   tool_choice                  names an offered tool
//   metadata                     keys of at most 64 characters
//   previous_response_id         not together with conversation
import { GatewayError } from '../../errors.js';
import type { InputItemBody } from '../../protocols/openai-responses/input-items.js';
import type { ResponsesRequestBody } from '../../protocols/openai-responses/request.js';
import type { ToolBody, ToolChoiceBody } from '../../protocols/openai-responses/tools.js';

type Loose = Record<string, unknown>;

export function checkVendorRules(body: ResponsesRequestBody): void {
  if (body.previous_response_id != null && (body as Loose).conversation != null) {
    fail(
      'previous_response_id',
      null,
      "Mutually exclusive parameters: Ensure you are only providing one of: 'previous_response_id' or 'conversation'.",
    );
  }
  const input = body.input;
  if (input !== undefined && typeof input !== 'string') {
    if (input.length === 0) {
      fail('input', 'empty_array', "Invalid 'input': empty array. Expected an array with minimum length 1, but got an empty array instead.");
    }
    const stored = body.previous_response_id != null || (body as Loose).conversation != null;
    checkInput(input, stored);
  }
  const names = body.tools != null && body.tools.length > 0 ? checkTools(body.tools) : undefined;
  if (body.tool_choice != null) checkToolChoice(body.tool_choice, names);
  const metadata = body.metadata;
  if (metadata != null) {
    for (const key in metadata) {
      if (key.length > 64) {
        fail(
          'metadata',
          'string_above_max_length',
          `Invalid 'metadata': key '${key.slice(0, 64)}…' is too long. Expected keys with maximum length 64, but got a key with length ${key.length} instead.`,
        );
      }
    }
  }
}

function checkInput(input: readonly InputItemBody[], stored: boolean): void {
  // An item reference the gateway could not resolve goes to OpenAI as is: it may be the call an output answers.
  let referenced = false;
  // call_id → index of the call item, while unanswered; answered ids are removed.
  const open = new Map<string, number>();
  const seen = new Set<string>();
  for (let i = 0; i < input.length; i++) {
    const item = input[i] as Loose;
    switch (item.type) {
      case undefined:
      case null:
      case 'message':
        if (item.role === undefined && typeof item.id === 'string') referenced = true; // the bare {id} reference
        if (item.role === 'user') {
          const content = item.content as string | unknown[];
          if (content === '') {
            fail(`input[${i}].content`, 'empty_string', `Invalid 'input[${i}].content': string too short. Expected a string with minimum length 1, but got an empty string instead.`);
          }
          if (Array.isArray(content) && content.length === 0) {
            fail(`input[${i}].content`, 'empty_array', `Invalid 'input[${i}].content': empty array. Expected an array with minimum length 1, but got an empty array instead.`);
          }
          if (open.size > 0 && !referenced) unanswered(open);
        }
        break;
      case 'function_call':
      case 'custom_tool_call': {
        const id = item.call_id as string;
        open.set(id, i);
        seen.add(id);
        break;
      }
      case 'item_reference':
        referenced = true;
        break;
      case 'function_call_output':
      case 'custom_tool_call_output': {
        const id = item.call_id as string;
        if (!seen.has(id) && !stored && !referenced) {
          const what = item.type === 'function_call_output' ? 'function call output' : 'custom tool call output';
          fail(`input[${i}].call_id`, null, `No tool call found for ${what} with call_id ${id}.`);
        }
        open.delete(id);
        break;
      }
      default:
        break;
    }
  }
  // A call still open at the end: OpenAI refuses it, and translated it would be a tool_use without its
  // result (Anthropic's 400) or a dangling chat tool call.
  if (open.size > 0 && !referenced) unanswered(open);
}

/** The first call (in input order) that no output answered. */
function unanswered(open: Map<string, number>): never {
  const [callId, at] = open.entries().next().value as [string, number];
  fail(`input[${at}].call_id`, null, `No tool output found for function call ${callId}.`);
}

function checkTools(tools: readonly ToolBody[]): Set<string> {
  const names = new Set<string>();
  for (let i = 0; i < tools.length; i++) {
    const t = tools[i] as Loose;
    if (t.type === 'function' || t.type === 'custom') {
      addName(names, t, `tools[${i}]`);
    } else if (t.type === 'namespace') {
      // Members are called by their own names, scoped by the namespace.
      const own = new Set<string>();
      const members = t.tools as Loose[];
      for (let k = 0; k < members.length; k++) {
        const m = members[k]!;
        if (m.type === 'function' || m.type === 'custom') {
          addName(own, m, `tools[${i}].tools[${k}]`);
          names.add(m.name as string);
        }
      }
    }
  }
  return names;
}

function addName(names: Set<string>, tool: Loose, at: string): void {
  const name = tool.name as string;
  if (names.has(name)) {
    fail(`${at}.name`, 'invalid_value', `Invalid '${at}.name': duplicate tool name '${name}'. Tool names must be unique.`);
  }
  names.add(name);
  if (tool.type !== 'function') return;
  const params = tool.parameters as Loose | null | undefined;
  if (params == null) return;
  const type = params.type;
  // `{}` (no parameters) is fine; anything else must describe an object.
  if (type === 'object' || (type === undefined && isEmpty(params))) return;
  fail(
    `${at}.parameters`,
    'invalid_function_parameters',
    `Invalid schema for function '${name}': schema must be a JSON Schema of 'type: "object"', got 'type: "${type === undefined ? 'None' : String(type)}"'.`,
  );
}

function isEmpty(obj: object): boolean {
  for (const _ in obj) return false;
  return true;
}

function checkToolChoice(choice: ToolChoiceBody, names: Set<string> | undefined): void {
  if (typeof choice === 'string') return;
  const c = choice as Loose;
  if (c.type === 'function' || c.type === 'custom') {
    const name = c.name as string;
    if (names?.has(name) !== true) {
      fail('tool_choice.name', 'invalid_value', `Invalid 'tool_choice.name': tool '${name}' is not in 'tools'.`);
    }
  } else if (c.type === 'allowed_tools') {
    const allowed = c.tools as Loose[];
    for (let k = 0; k < allowed.length; k++) {
      const t = allowed[k]!;
      if ((t.type === 'function' || t.type === 'custom') && typeof t.name === 'string' && names?.has(t.name) !== true) {
        fail(`tool_choice.tools[${k}].name`, 'invalid_value', `Invalid 'tool_choice.tools[${k}].name': tool '${t.name}' is not in 'tools'.`);
      }
    }
  }
}

function fail(param: string, code: string | null, message: string): never {
  throw new GatewayError('invalid_request', message, code === null ? { param } : { param, code });
}
