// The media-URL rule (ir/media-url.ts) on the Messages door: every `url` image or document source, in
// any message (the pass-through lane forwards assistant turns too), inside tool results and inside
// `content`-source documents, is checked before anything is decoded or sent. A refusal is a 400 naming
// the field, e.g. `messages.0.content.1.source.url`.
import { GatewayError } from '../../errors.js';
import { mediaUrlRefusal, type MediaUrlRule } from '../../ir/media-url.js';
import type { MessageParamBody } from '../../protocols/anthropic-messages/request.js';

interface SourcedBlock {
  type: string;
  source?: { type?: unknown; url?: unknown; content?: unknown };
  content?: unknown;
}

export function checkMediaUrls(messages: readonly MessageParamBody[], rule: MediaUrlRule): void {
  for (let i = 0; i < messages.length; i++) {
    const content = messages[i]!.content;
    if (typeof content !== 'string') checkBlocks(content as readonly SourcedBlock[], `messages.${i}.content`, rule);
  }
}

/** Blocks nest at most as deep as the schema lets them (tool_result → document → content → image). */
function checkBlocks(blocks: readonly SourcedBlock[], path: string, rule: MediaUrlRule): void {
  for (let j = 0; j < blocks.length; j++) {
    const block = blocks[j]!;
    if (block.type === 'image' || block.type === 'document') {
      const source = block.source;
      if (source?.type === 'url' && typeof source.url === 'string') {
        const why = mediaUrlRefusal(source.url, rule);
        if (why !== undefined) {
          const param = `${path}.${j}.source.url`;
          throw new GatewayError('invalid_request', `${param}: ${why}`, { param, code: 'invalid_value' });
        }
      } else if (source?.type === 'content' && Array.isArray(source.content)) {
        checkBlocks(source.content as SourcedBlock[], `${path}.${j}.source.content`, rule);
      }
    } else if (block.type === 'tool_result' && Array.isArray(block.content)) {
      checkBlocks(block.content as SourcedBlock[], `${path}.${j}.content`, rule);
    }
  }
}
