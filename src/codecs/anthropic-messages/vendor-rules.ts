// The Messages API's rules beyond the wire shape, in one table. The compiled TypeBox check
// (protocols/anthropic-messages) already refuses what a shape can say: unknown block, tool and thinking
// types, tool names outside `^[a-zA-Z0-9_-]{1,128}$`, input schemas that are not `type: "object"` or
// whose property types JSON Schema does not define, image media types other than jpeg/png/gif/webp,
// `max_tokens` outside 0..1e6, thinking `budget_tokens` < 1024, temperature / top_p outside 0..1,
// metadata keys other than `user_id` (≤ 256 characters). What needs the whole conversation is here,
// in one walk over `messages` (and one over `tools`), with the API's own wording where it is known:
//
//   messages          at least one message is required
//   messages.N        non-empty content, except an optional final assistant message, which must not
//                     end with whitespace (it is a prefill)
//   ….text            text content blocks must be non-empty and contain non-whitespace text
//   ….source.data     base64 payloads must be base64
//   tool_use ids      unique; every one answered by a tool_result at the start of the next user message
//   tool_result       answers a tool_use of the previous assistant message
//   tools.N.name      unique
//   tool_choice       names an offered tool; does not force tool use while thinking is enabled
//   max_tokens        greater than thinking.budget_tokens
//   with thinking     temperature only 1, top_p 0.95–1, no top_k
import { GatewayError } from '../../errors.js';
import { isBase64 } from '../base64-check.js';
import type { CountTokensRequestBody, MessageParamBody } from '../../protocols/anthropic-messages/request.js';

type Block = { type: string } & Record<string, unknown>;

export function checkVendorRules(body: CountTokensRequestBody): void {
  const messages = body.messages;
  if (messages.length === 0) fail('messages', 'at least one message is required');
  const toolNames = body.tools !== undefined && body.tools.length > 0 ? checkTools(body.tools) : undefined;
  const choice = body.tool_choice;
  if (choice !== undefined && choice.type === 'tool' && toolNames?.has(choice.name) !== true) {
    fail('tool_choice.name', `tool_choice names the tool \`${choice.name}\`, which is not in \`tools\``);
  }
  const thinking = body.thinking;
  if (thinking !== undefined && thinking.type === 'enabled') {
    if (body.max_tokens !== undefined && body.max_tokens <= thinking.budget_tokens) {
      fail('max_tokens', '`max_tokens` must be greater than `thinking.budget_tokens`');
    }
    if (choice !== undefined && (choice.type === 'any' || choice.type === 'tool')) {
      fail('tool_choice', 'Thinking may not be enabled when tool_choice forces tool use.');
    }
    if (body.temperature !== undefined && body.temperature !== 1) {
      fail('temperature', '`temperature` may only be set to 1 when thinking is enabled.');
    }
    if (body.top_p !== undefined && body.top_p < 0.95) {
      fail('top_p', '`top_p` must be greater than or equal to 0.95 when thinking is enabled.');
    }
    if (body.top_k !== undefined) fail('top_k', '`top_k` cannot be set when thinking is enabled.');
  }
  const system = body.system;
  if (system !== undefined && typeof system !== 'string') {
    for (let k = 0; k < system.length; k++) {
      if (system[k]!.text === '') fail(`system.${k}.text`, 'text content blocks must be non-empty');
    }
  }
  checkConversation(messages);
}

function checkTools(tools: NonNullable<CountTokensRequestBody['tools']>): Set<string> {
  const names = new Set<string>();
  for (let i = 0; i < tools.length; i++) {
    const name = tools[i]!.name;
    if (name === undefined) continue;
    if (names.has(name)) fail(`tools.${i}.name`, `Tool names must be unique (\`${name}\` is defined twice).`);
    names.add(name);
  }
  return names;
}

function checkConversation(messages: readonly MessageParamBody[]): void {
  const last = messages.length - 1;
  // tool_use ids of the latest assistant message(s) that the next user message must answer.
  let pending: string[] | undefined;
  let pendingAt = -1;
  const seenUseIds = new Set<string>();
  for (let i = 0; i <= last; i++) {
    const m = messages[i]!;
    if (m.role === 'system') continue; // mid-conversation system text: not part of the turn structure
    const content = m.content;
    const finalAssistant = i === last && m.role === 'assistant';
    if (typeof content === 'string' ? content === '' : content.length === 0) {
      if (!finalAssistant) fail(`messages.${i}`, 'all messages must have non-empty content except for the optional final assistant message');
    }
    if (finalAssistant && endsWithWhitespace(content)) {
      fail(`messages.${i}`, 'final assistant content cannot end with trailing whitespace');
    }
    if (m.role === 'assistant') {
      if (typeof content === 'string') continue;
      for (let j = 0; j < content.length; j++) {
        const block = content[j] as Block;
        if (block.type === 'text') checkText(block.text as string, i, j);
        else if (block.type === 'tool_use') {
          const id = block.id as string;
          if (seenUseIds.has(id)) fail(`messages.${i}.content.${j}.id`, '`tool_use` ids must be unique');
          seenUseIds.add(id);
          if (pending === undefined || pendingAt < 0) {
            pending = [];
            pendingAt = i;
          }
          pending.push(id);
        }
      }
      continue;
    }
    // A user message.
    if (typeof content === 'string') {
      if (pending !== undefined) unanswered(pendingAt, pending);
      continue;
    }
    let answered = 0;
    let otherSeen = false;
    for (let j = 0; j < content.length; j++) {
      const block = content[j] as Block;
      switch (block.type) {
        case 'text':
          checkText(block.text as string, i, j);
          otherSeen = true;
          break;
        case 'image':
        case 'document':
          checkMedia(block, `messages.${i}.content.${j}`);
          otherSeen = true;
          break;
        case 'tool_result': {
          const id = block.tool_use_id as string;
          const k = pending === undefined ? -1 : pending.indexOf(id);
          if (k < 0) {
            fail(
              `messages.${i}.content.${j}.tool_use_id`,
              `unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
            );
          }
          if (otherSeen) {
            fail(`messages.${i}.content.${j}`, '`tool_result` blocks must come before any other content in the message that answers the tool calls');
          }
          pending![k] = ''; // answered (ids are never empty strings in a valid tool_use… and a repeat now misses)
          answered++;
          if (Array.isArray(block.content)) checkToolResultContent(block.content as Block[], `messages.${i}.content.${j}.content`);
          break;
        }
        default:
          otherSeen = true;
      }
    }
    if (pending !== undefined && answered < pending.length) unanswered(pendingAt, pending);
    pending = undefined;
    pendingAt = -1;
  }
}

/** A prefill's last text (string content, or a last block of type text). */
function endsWithWhitespace(content: MessageParamBody['content']): boolean {
  let text: string;
  if (typeof content === 'string') text = content;
  else {
    const last = content[content.length - 1] as Block | undefined;
    if (last === undefined || last.type !== 'text') return false;
    text = last.text as string;
  }
  return text.length > 0 && TRAILING_SPACE.test(text);
}

const TRAILING_SPACE = /\s$/;

function unanswered(at: number, pending: readonly string[]): never {
  const ids = pending.filter((id) => id !== '').join(', ');
  return fail(
    `messages.${at}`,
    `\`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${ids}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
  );
}

function checkText(text: string, i: number, j: number): void {
  if (text === '') fail(`messages.${i}.content.${j}.text`, 'text content blocks must be non-empty');
  // /\S/ stops at the first visible character: cheap on real text.
  if (!NON_BLANK.test(text)) fail(`messages.${i}.content.${j}.text`, 'text content blocks must contain non-whitespace text');
}

const NON_BLANK = /\S/;

function checkToolResultContent(content: readonly Block[], path: string): void {
  for (let k = 0; k < content.length; k++) {
    const b = content[k]!;
    if (b.type === 'image' || b.type === 'document') checkMedia(b, `${path}.${k}`);
  }
}

/** Base64 payloads of image and PDF blocks (and the images of a content-source document). */
function checkMedia(block: Block, path: string): void {
  const source = block.source as { type: string; data?: string; content?: unknown };
  if (source.type === 'base64') {
    if (!isBase64(source.data!)) fail(path + '.source.data', 'invalid base64 data');
  } else if (source.type === 'content' && Array.isArray(source.content)) {
    const items = source.content as Block[];
    for (let k = 0; k < items.length; k++) if (items[k]!.type === 'image') checkMedia(items[k]!, `${path}.source.content.${k}`);
  }
}

function fail(path: string, message: string): never {
  throw new GatewayError('invalid_request', path + ': ' + message, { param: path });
}
