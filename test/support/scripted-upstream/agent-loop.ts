// The default "model" for agent-loop tests: call the client's shell tool once, then report what it printed.
import type { Protocol, ReceivedRequest, Reply } from './types.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export const DEFAULT_COMMAND = 'echo switchyard-ok > switchyard-proof.txt && cat switchyard-proof.txt';

interface ToolInfo {
  name: string;
  schema: Json | undefined;
  custom: boolean;
}

/** Shell tools in order of preference: Claude Code's Bash, Codex's exec_command, Gemini CLI's and Qwen Code's
 *  run_shell_command, then older shell styles and opencode's bash. */
const SHELL_TOOLS = ['Bash', 'exec_command', 'run_shell_command', 'shell_command', 'shell', 'local_shell', 'bash'];

function toolsOf(protocol: Protocol, body: Json): ToolInfo[] {
  const tools: Json[] = Array.isArray(body?.tools) ? body.tools : [];
  const out: ToolInfo[] = [];
  if (protocol === 'gemini') {
    for (const t of tools) for (const d of t.functionDeclarations ?? []) out.push({ name: d.name, schema: d.parametersJsonSchema ?? d.parameters, custom: false });
    return out;
  }
  for (const t of tools) {
    if (protocol === 'chat') {
      if (t.type === 'function' && t.function?.name) out.push({ name: t.function.name, schema: t.function.parameters, custom: false });
      else if (t.type === 'custom' && t.custom?.name) out.push({ name: t.custom.name, schema: undefined, custom: true });
    } else if (protocol === 'responses') {
      // Built-ins (web_search, namespace, local_shell…) need item types this stand-in does not produce.
      if (t.type === 'function' && t.name) out.push({ name: t.name, schema: t.parameters, custom: false });
      else if (t.type === 'custom' && t.name) out.push({ name: t.name, schema: undefined, custom: true });
    } else if (typeof t.name === 'string') {
      // Custom tools, plus Anthropic's bash_* tool, whose input is {command}.
      const schema = t.input_schema ?? (String(t.type).startsWith('bash_') ? { properties: { command: { type: 'string' } } } : undefined);
      if (schema) out.push({ name: t.name, schema, custom: false });
    }
  }
  return out;
}

function pickTool(tools: ToolInfo[]): ToolInfo | undefined {
  for (const name of SHELL_TOOLS) {
    const tool = tools.find((t) => t.name === name && !t.custom);
    if (tool) return tool;
  }
  return tools.find((t) => !t.custom) ?? tools[0];
}

/** Arguments that run `command` with whatever the tool's schema calls its command field. */
function argumentsFor(tool: ToolInfo, command: string): Json {
  const props: Json = tool.schema?.properties ?? {};
  const args: Json = {};
  if ('cmd' in props) args.cmd = command; // Codex exec_command: {cmd: string, …}
  else if (props.command?.type === 'array') args.command = ['bash', '-lc', command]; // shell / local_shell style
  else if ('command' in props || Object.keys(props).length === 0) args.command = command; // Bash, shell_command
  if (tool.name === 'Bash') args.description = 'Write and read back a proof file';
  const required: string[] = Array.isArray(tool.schema?.required) ? tool.schema.required : [];
  for (const key of required) {
    if (key in args) continue;
    const type = props[key]?.type;
    args[key] = type === 'array' ? [command] : type === 'number' || type === 'integer' ? 1 : type === 'boolean' ? false : type === 'object' ? {} : command;
  }
  return args;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part: Json) => (typeof part?.text === 'string' ? part.text : '')).join('');
  return '';
}

/** Tool results at the end of the conversation (empty if the last turn is not a tool result). */
function geminiParts(body: Json): { role: string; part: Json }[] {
  const contents: Json[] = Array.isArray(body?.contents) ? body.contents : [];
  return contents.flatMap((c) => (Array.isArray(c?.parts) ? c.parts.map((part: Json) => ({ role: c.role, part })) : []));
}

function trailingToolResults(protocol: Protocol, body: Json): string[] {
  if (protocol === 'gemini') {
    const contents: Json[] = Array.isArray(body?.contents) ? body.contents : [];
    const last = contents[contents.length - 1];
    if (last?.role !== 'user') return [];
    return (last.parts ?? []).filter((p: Json) => p?.functionResponse).map((p: Json) => {
      const r = p.functionResponse.response ?? {};
      return typeof r.output === 'string' ? r.output : typeof r.error === 'string' ? r.error : JSON.stringify(r);
    });
  }
  if (protocol === 'messages') {
    const messages: Json[] = Array.isArray(body?.messages) ? body.messages : [];
    const last = messages[messages.length - 1];
    if (last?.role !== 'user' || !Array.isArray(last.content)) return [];
    return last.content.filter((b: Json) => b?.type === 'tool_result').map((b: Json) => textOf(b.content));
  }
  const entries: Json[] = protocol === 'chat' ? (body?.messages ?? []) : Array.isArray(body?.input) ? body.input : [];
  const isResult = (e: Json) => (protocol === 'chat' ? e?.role === 'tool' : /_call_output$/.test(String(e?.type)));
  const results: string[] = [];
  for (let i = entries.length - 1; i >= 0 && isResult(entries[i]!); i--) results.unshift(textOf(entries[i]!.content ?? entries[i]!.output));
  return results;
}

function countToolResults(protocol: Protocol, body: Json): number {
  if (protocol === 'gemini') return geminiParts(body).filter((p) => p.part?.functionResponse).length;
  if (protocol === 'messages')
    return (body?.messages ?? []).flatMap((m: Json) => (Array.isArray(m?.content) ? m.content : [])).filter((b: Json) => b?.type === 'tool_result').length;
  if (protocol === 'chat') return (body?.messages ?? []).filter((m: Json) => m?.role === 'tool').length;
  return (Array.isArray(body?.input) ? body.input : []).filter((i: Json) => /_call_output$/.test(String(i?.type))).length;
}

function lastUserText(protocol: Protocol, body: Json): string {
  if (protocol === 'gemini') {
    const texts = geminiParts(body).filter((p) => p.role === 'user' && typeof p.part?.text === 'string');
    return texts[texts.length - 1]?.part.text ?? '';
  }
  if (protocol === 'responses' && typeof body?.input === 'string') return body.input;
  const entries: Json[] = protocol === 'messages' || protocol === 'chat' ? (body?.messages ?? []) : Array.isArray(body?.input) ? body.input : [];
  const user = [...entries].reverse().find((e) => e?.role === 'user');
  if (!user) return '';
  if (Array.isArray(user.content)) {
    const texts = user.content.map((p: Json) => (typeof p?.text === 'string' ? p.text : '')).filter(Boolean);
    return texts[texts.length - 1] ?? '';
  }
  return textOf(user.content);
}

/** The JSON Schema the caller wants the answer to follow, if any (e.g. Claude Code's session-title request). */
function requestedSchema(protocol: Protocol, body: Json): Json | undefined {
  if (protocol === 'messages') return body?.output_config?.format?.schema ?? body?.output_format?.schema;
  if (protocol === 'responses') return body?.text?.format?.type === 'json_schema' ? body.text.format.schema : undefined;
  if (protocol === 'gemini') return body?.generationConfig?.responseJsonSchema ?? body?.generationConfig?.responseSchema;
  return body?.response_format?.type === 'json_schema' ? body.response_format.json_schema?.schema : undefined;
}

function sampleOf(schema: Json | undefined): unknown {
  if (!schema || typeof schema !== 'object') return 'switchyard-ok';
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'object' || schema.properties) {
    const props: Json = schema.properties ?? {};
    const keys: string[] = Array.isArray(schema.required) ? schema.required : Object.keys(props);
    return Object.fromEntries(keys.map((k) => [k, sampleOf(props[k])]));
  }
  if (type === 'array') return [];
  if (type === 'number' || type === 'integer') return 0;
  if (type === 'boolean') return true;
  return 'switchyard-ok';
}

/**
 * A model in an agent loop, protocol-aware: with tools and no tool result yet, reason (with opaque state
 * `opaque-<protocol>-<n>`) and call the shell tool; after a tool result, answer `Tool said: <output>`.
 */
export function agentLoopReply(req: ReceivedRequest, opts: { command?: string } = {}): Reply {
  const body: Json = req.body ?? {};
  const results = trailingToolResults(req.protocol, body);
  if (results.length) return { kind: 'reply', blocks: [{ type: 'text', text: `Tool said: ${results.join('\n').trim()}` }] };

  const tool = pickTool(toolsOf(req.protocol, body));
  if (tool) {
    const command = opts.command ?? DEFAULT_COMMAND;
    const n = countToolResults(req.protocol, body) + 1;
    return {
      kind: 'reply',
      blocks: [
        { type: 'reasoning', text: 'The user wants proof that tools work; run a harmless shell command.', opaque: `opaque-${req.protocol}-${n}` },
        { type: 'tool-call', name: tool.name, arguments: tool.custom ? command : JSON.stringify(argumentsFor(tool, command)), custom: tool.custom },
      ],
    };
  }

  const schema = requestedSchema(req.protocol, body);
  const text = schema ? JSON.stringify(sampleOf(schema)) : `You said: ${lastUserText(req.protocol, body).slice(0, 200)}`;
  return { kind: 'reply', blocks: [{ type: 'text', text }] };
}
