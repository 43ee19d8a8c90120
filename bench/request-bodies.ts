// Request bodies the load generator sends, one realistic ≈600-token conversation in each protocol's
// own shape. The same conversation is used everywhere, so DIRECT, FLOOR and the gateway carry the same
// words; DIRECT and FLOOR send the upstream protocol's shape (what the gateway would send upstream).
import { ASSISTANT_TURN_1, SYSTEM_PROMPT, USER_TURN_1, USER_TURN_2 } from './corpus.js';

export type Protocol = 'messages' | 'responses' | 'chat' | 'gemini';

/** Path of the create endpoint on the fake upstream (and on the gateway for the two front doors). */
export const ENDPOINT: Record<Protocol, string> = {
  messages: '/v1/messages',
  responses: '/v1/responses',
  chat: '/v1/chat/completions',
  // Gemini names the model and the mode in the path: see geminiPath.
  gemini: '/v1beta/models',
};

/** A Gemini request's path (model and streaming are in it, not in the body). */
export function geminiPath(model: string, stream: boolean): string {
  return `/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`;
}

/** The path a request of that protocol goes to (a Gemini one names the model and the mode). */
export function requestPath(protocol: Protocol, model: string, stream: boolean): string {
  return protocol === 'gemini' ? geminiPath(model, stream) : ENDPOINT[protocol];
}

/** What the body says beyond the conversation. `store: false` is sent only when asked: OpenAI's `store`
 * defaults to true and the OpenAI SDKs and most callers leave it unset, so the default rows store. */
export interface BodyOptions {
  store?: false;
}

export function requestBody(protocol: Protocol, model: string, stream: boolean, options: BodyOptions = {}): string {
  switch (protocol) {
    case 'messages':
      return JSON.stringify({
        model,
        max_tokens: 1024,
        system: [{ type: 'text', text: SYSTEM_PROMPT }],
        messages: [
          { role: 'user', content: [{ type: 'text', text: USER_TURN_1 }] },
          { role: 'assistant', content: [{ type: 'text', text: ASSISTANT_TURN_1 }] },
          { role: 'user', content: USER_TURN_2 },
        ],
        metadata: { user_id: 'bench-user-0001' },
        ...(stream ? { stream: true } : {}),
      });
    case 'responses':
      return JSON.stringify({
        model,
        instructions: SYSTEM_PROMPT,
        input: [
          { type: 'message', role: 'user', content: [{ type: 'input_text', text: USER_TURN_1 }] },
          { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: ASSISTANT_TURN_1, annotations: [] }] },
          { role: 'user', content: USER_TURN_2 },
        ],
        max_output_tokens: 1024,
        ...(options.store === false ? { store: false } : {}),
        ...(stream ? { stream: true } : {}),
      });
    case 'chat':
      return JSON.stringify({
        model,
        messages: [
          { role: 'system', content: SYSTEM_PROMPT },
          { role: 'user', content: USER_TURN_1 },
          { role: 'assistant', content: ASSISTANT_TURN_1 },
          { role: 'user', content: USER_TURN_2 },
        ],
        max_tokens: 1024,
        ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
      });
    case 'gemini':
      // No model and no stream flag: both are in the path (geminiPath).
      return JSON.stringify({
        contents: [
          { role: 'user', parts: [{ text: USER_TURN_1 }] },
          { role: 'model', parts: [{ text: ASSISTANT_TURN_1 }] },
          { role: 'user', parts: [{ text: USER_TURN_2 }] },
        ],
        systemInstruction: { parts: [{ text: SYSTEM_PROMPT }] },
        generationConfig: { maxOutputTokens: 1024 },
      });
  }
}

/** Headers a real SDK of that protocol sends (auth included; the fake upstream ignores it). */
export function requestHeaders(protocol: Protocol): Record<string, string> {
  const common = { 'content-type': 'application/json', accept: 'application/json' };
  if (protocol === 'messages') {
    return { ...common, 'x-api-key': 'sk-bench', 'anthropic-version': '2023-06-01' };
  }
  if (protocol === 'gemini') return { ...common, 'x-goog-api-key': 'AIza-bench' };
  return { ...common, authorization: 'Bearer sk-bench' };
}
