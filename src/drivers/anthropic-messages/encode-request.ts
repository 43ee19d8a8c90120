// IR request → Anthropic Messages request (messages.md §3, mapping.md §1, §8, §11, §12). The pieces
// are built in dependency order: conversation and tools first, because whether thinking may be on
// depends on both, and sampling depends on thinking.
import type { IrRequest, Warning } from '../../ir/types.js';
import type { UpstreamMessagesRequest, UpstreamOutputConfig, UpstreamTextBlock } from '../../protocols/anthropic-messages/upstream-request.js';
import { ANTHROPIC_USER_ID_MAX, fitIdentifier } from '../fit-identifier.js';
import type { DriverTarget, EncodedRequest } from '../types.js';
import { textBlock } from './encode-content.js';
import { buildConversation, stripFinalThinking, toMessages, toolLoopAssistant } from './encode-messages.js';
import { planThinking } from './encode-thinking.js';
import { encodeTools } from './encode-tools.js';
import { MESSAGES_PATH, messagesHeaders } from './request-headers.js';
import { warnSeedAndPenalties } from '../unsampled-fields.js';

/** With thinking on, Anthropic accepts top_p only from here up (messages.md §3). */
const MIN_TOP_P_WITH_THINKING = 0.95;

export function encodeMessagesRequest(req: IrRequest, target: DriverTarget, stream: boolean, warnings: Warning[]): EncodedRequest {
  const sameFamily = req.sourceProtocol === 'messages';
  const conversation = buildConversation(req, warnings);
  const tools = encodeTools(req);
  const loop = toolLoopAssistant(conversation);
  const plan = planThinking(
    req,
    {
      defaultMaxTokens: target.options.defaultMaxTokens,
      forcedTool: tools?.forced === true,
      toolLoop: loop ? { restorable: loop.thinking.length > 0 } : undefined,
    },
    warnings,
  );
  if (!plan.on) stripFinalThinking(conversation, warnings);

  const system = systemBlocks(req);
  const messages = toMessages(conversation);
  const body: UpstreamMessagesRequest = system
    ? { model: target.model, max_tokens: plan.maxTokens, system, messages }
    : { model: target.model, max_tokens: plan.maxTokens, messages };
  if (tools) {
    body.tools = tools.tools;
    if (tools.toolChoice) body.tool_choice = tools.toolChoice;
  }
  if (plan.thinking) body.thinking = plan.thinking;
  const outputConfig = encodeOutputConfig(req, plan.effort, warnings);
  if (outputConfig) body.output_config = outputConfig;
  encodeSampling(req, body, plan.on, warnings);
  if (req.stopSequences.length > 0) body.stop_sequences = req.stopSequences;
  if (req.user !== undefined) body.metadata = { user_id: fitIdentifier(req.user, ANTHROPIC_USER_ID_MAX) };
  if (sameFamily) {
    // Fields only Anthropic knows (context_management, container, service_tier, …), verbatim. Other
    // protocols' extras were already reported by their inbound codec.
    const extras = req.extras.messages;
    if (extras) for (const key in extras) if (!(key in body)) body[key] = extras[key];
  } else if (!hasCacheControl(req)) {
    // Callers of other protocols cannot place breakpoints; long agent prompts would otherwise pay
    // full price on every turn. The top-level marker lets Anthropic place it automatically.
    body.cache_control = { type: 'ephemeral' };
  }
  if (stream) body.stream = true;

  return { path: MESSAGES_PATH, headers: messagesHeaders(target), body: JSON.stringify(body) };
}

function systemBlocks(req: IrRequest): UpstreamTextBlock[] | undefined {
  let out: UpstreamTextBlock[] | undefined;
  for (const part of req.system) {
    const block = textBlock(part);
    if (block) (out ??= []).push(block);
  }
  return out;
}

function encodeOutputConfig(req: IrRequest, effort: UpstreamOutputConfig['effort'], warnings: Warning[]): UpstreamOutputConfig | undefined {
  let config: UpstreamOutputConfig | undefined;
  if (effort !== undefined) config = { effort };
  const format = req.outputFormat;
  if (format) {
    switch (format.type) {
      case 'text':
        break;
      case 'json_schema':
        (config ??= {}).format = { type: 'json_schema', schema: format.schema };
        break;
      case 'json_object':
        warnings.push({ field: 'output_format', message: 'json_object output has no Anthropic equivalent; not enforced' });
        break;
      default: {
        const never: never = format;
        return never;
      }
    }
  }
  return config;
}

/** messages.md §3, mapping.md §12, §15.36: temperature clamped to Anthropic's [0, 1]; with thinking on
 * temperature and top_k must stay default and top_p may only be high. */
function encodeSampling(req: IrRequest, body: UpstreamMessagesRequest, thinking: boolean, warnings: Warning[]): void {
  const temperature = req.temperature;
  if (temperature !== undefined) {
    if (thinking) {
      if (temperature !== 1) warnings.push({ field: 'temperature', message: 'temperature is not sent to Anthropic while thinking is on' });
    } else {
      const clamped = temperature < 0 ? 0 : temperature > 1 ? 1 : temperature;
      if (clamped !== temperature) warnings.push({ field: 'temperature', message: `temperature ${temperature} clamped to ${clamped} (Anthropic accepts 0–1)` });
      body.temperature = clamped;
    }
  }
  const topP = req.topP;
  if (topP !== undefined) {
    if (thinking && topP < MIN_TOP_P_WITH_THINKING) {
      warnings.push({ field: 'top_p', message: `top_p ${topP} is not sent to Anthropic while thinking is on (only ${MIN_TOP_P_WITH_THINKING}–1 is accepted)` });
    } else {
      body.top_p = topP;
    }
  }
  const topK = req.topK;
  if (topK !== undefined) {
    if (thinking) warnings.push({ field: 'top_k', message: 'top_k is not sent to Anthropic while thinking is on' });
    else body.top_k = topK;
  }
  warnSeedAndPenalties(req, 'Anthropic', warnings);
}

/** Whether the caller placed any cache breakpoint itself. */
function hasCacheControl(req: IrRequest): boolean {
  for (const part of req.system) if (part.cacheControl != null) return true;
  for (const tool of req.tools) if (tool.cacheControl != null) return true;
  for (const turn of req.turns) {
    for (const part of turn.parts) if ((part as { cacheControl?: unknown }).cacheControl != null) return true;
  }
  return false;
}
