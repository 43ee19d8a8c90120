// What the scripted upstream received, read back in a normalised form per upstream protocol, so the
// conformance matrix can assert the gateway sent each protocol correctly.
import type { UpstreamProtocol } from './gateway-harness.js';

export interface UpstreamView {
  model: string;
  stream: boolean;
  system: string;
  /** Conversation entries in the protocol's own unit (messages / items). */
  userTexts: string[];
  assistantTexts: string[];
  toolNames: string[];
  toolChoice: unknown;
  images: string[];
  toolCalls: { id: string; name: string }[];
  toolResults: { id: string; text: string }[];
  opaque: string[];
  stop: unknown;
  raw: Record<string, unknown>;
}

type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((c: Any) => c.text ?? c.refusal ?? '').join('');
  return '';
}

/** `path`: the request path, where Gemini names the model (`/models/{m}:generateContent`). */
export function viewOf(protocol: UpstreamProtocol, body: Any, path?: string): UpstreamView {
  const v: UpstreamView = {
    model: body.model,
    stream: body.stream === true,
    system: '',
    userTexts: [],
    assistantTexts: [],
    toolNames: [],
    toolChoice: body.tool_choice,
    images: [],
    toolCalls: [],
    toolResults: [],
    opaque: [],
    stop: undefined,
    raw: body,
  };
  if (protocol === 'gemini') {
    geminiView(v, body, path);
  } else if (protocol === 'messages') {
    v.system = typeof body.system === 'string' ? body.system : (body.system ?? []).map((b: Any) => b.text).join('\n\n');
    v.toolNames = (body.tools ?? []).map((t: Any) => t.name);
    v.stop = body.stop_sequences;
    for (const m of body.messages as Any[]) {
      const blocks: Any[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
      for (const b of blocks) {
        if (b.type === 'text') (m.role === 'user' ? v.userTexts : v.assistantTexts).push(b.text);
        else if (b.type === 'image') v.images.push(b.source.type === 'url' ? b.source.url : `${b.source.media_type}:${b.source.data}`);
        else if (b.type === 'tool_use') v.toolCalls.push({ id: b.id, name: b.name });
        else if (b.type === 'tool_result') v.toolResults.push({ id: b.tool_use_id, text: textOf(b.content) });
        else if (b.type === 'thinking') v.opaque.push(b.signature);
        else if (b.type === 'redacted_thinking') v.opaque.push(b.data);
      }
    }
  } else if (protocol === 'responses') {
    v.system = body.instructions ?? '';
    v.toolNames = (body.tools ?? []).map((t: Any) => t.name);
    const input: Any[] = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : body.input ?? [];
    for (const item of input) {
      const type = item.type ?? 'message';
      if (type === 'message') {
        if (item.role === 'system' || item.role === 'developer') {
          v.system += textOf(item.content);
          continue;
        }
        const parts: Any[] = typeof item.content === 'string' ? [{ type: 'input_text', text: item.content }] : item.content;
        for (const p of parts) {
          if (p.type === 'input_image') v.images.push(p.image_url);
          else if (p.text !== undefined) (item.role === 'user' ? v.userTexts : v.assistantTexts).push(p.text);
        }
      } else if (type === 'function_call') v.toolCalls.push({ id: item.call_id, name: item.name });
      else if (type === 'function_call_output') v.toolResults.push({ id: item.call_id, text: textOf(item.output) });
      else if (type === 'reasoning' && item.encrypted_content) v.opaque.push(item.encrypted_content);
    }
  } else {
    v.toolNames = (body.tools ?? []).map((t: Any) => t.function.name);
    v.stop = body.stop;
    for (const m of body.messages as Any[]) {
      if (m.role === 'system' || m.role === 'developer') v.system += textOf(m.content);
      else if (m.role === 'tool') v.toolResults.push({ id: m.tool_call_id, text: textOf(m.content) });
      else if (m.role === 'assistant') {
        if (m.content) v.assistantTexts.push(textOf(m.content));
        for (const c of m.tool_calls ?? []) v.toolCalls.push({ id: c.id, name: c.function.name });
        if (m.reasoning_content) v.opaque.push(m.reasoning_content);
      } else if (m.role === 'user') {
        const parts: Any[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
        for (const p of parts) {
          if (p.type === 'image_url') v.images.push(p.image_url.url);
          else if (p.type === 'text') v.userTexts.push(p.text);
        }
      }
    }
  }
  return v;
}

function geminiView(v: UpstreamView, body: Any, path: string | undefined): void {
  const m = path ? /\/models\/([^/:]+):(\w+)/.exec(path) : null;
  v.model = m ? decodeURIComponent(m[1]!) : '';
  v.stream = m?.[2] === 'streamGenerateContent';
  v.system = (body.systemInstruction?.parts ?? []).map((p: Any) => p.text).join('\n\n');
  v.toolNames = (body.tools ?? []).flatMap((t: Any) => (t.functionDeclarations ?? []).map((d: Any) => d.name));
  v.toolChoice = body.toolConfig?.functionCallingConfig;
  v.stop = body.generationConfig?.stopSequences;
  for (const c of (body.contents ?? []) as Any[]) {
    for (const p of (c.parts ?? []) as Any[]) {
      if (typeof p.thoughtSignature === 'string') v.opaque.push(p.thoughtSignature);
      if (p.thought === true) continue;
      if (typeof p.text === 'string') {
        if (p.text !== '') (c.role === 'user' ? v.userTexts : v.assistantTexts).push(p.text);
      } else if (p.inlineData) v.images.push(`${p.inlineData.mimeType}:${p.inlineData.data}`);
      else if (p.fileData) v.images.push(p.fileData.fileUri);
      else if (p.functionCall) v.toolCalls.push({ id: p.functionCall.id, name: p.functionCall.name });
      else if (p.functionResponse) {
        const r = p.functionResponse.response ?? {};
        v.toolResults.push({ id: p.functionResponse.id, text: typeof r.output === 'string' ? r.output : (r.error ?? '') });
      }
    }
  }
}
