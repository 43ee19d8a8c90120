// Google Gemini `generateContent` wire format: GenerateContentResponse bodies, `streamGenerateContent?alt=sse`
// frames (`data: {…}\r\n\r\n`, the connection's end ends the answer), the google.rpc.Status error envelope,
// and — like Gemini 3 — thought signatures: the first function call of every answer is signed (with the
// script's opaque reasoning state, or a fresh signature), and a later request whose history drops or
// alters a signature it issued is refused with Gemini's 400. One renderer per server: it remembers what
// it signed.
import { randomBytes } from 'node:crypto';
import type { ErrorSpec, ProtocolRenderer, StreamScript } from './protocol.js';
import { splitText } from './sse.js';
import type { OkReply, ReceivedRequest } from './types.js';
import { resolveUsage, type ResolvedUsage } from './usage.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ABORTED',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

/** The google.rpc.Status envelope; a 429's retry delay travels in RetryInfo (Gemini sends no retry-after header). */
export function geminiError(spec: ErrorSpec & { retryAfter?: string }): unknown {
  const status = STATUS_NAMES[spec.status] ?? (spec.status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT');
  const details: Json[] = [];
  if (spec.status === 429) {
    details.push({ '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{ quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests', quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier' }] });
    if (spec.retryAfter !== undefined) details.push({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${spec.retryAfter}s` });
  }
  // Google's ErrorInfo for a refused API key (400 INVALID_ARGUMENT with reason API_KEY_INVALID).
  if (spec.code?.startsWith('API_KEY_')) {
    details.push({ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: spec.code, domain: 'googleapis.com', metadata: { service: 'generativelanguage.googleapis.com' } });
  }
  const error: Json = { code: spec.status, message: spec.message ?? `${status}`, status };
  if (details.length > 0) error.details = details;
  return { error };
}

// `$schema` too: Gemini CLI 0.61 sends it inside parametersJsonSchema (its activate_skill tool) and Google's API
// takes it there; the `Unknown name "$schema"` refusals seen in the wild are on the OpenAPI-typed `parameters`.
const SCHEMA_KEYWORDS = new Set([
  '$schema', '$id', '$defs', '$ref', '$anchor', 'type', 'format', 'title', 'description', 'enum', 'items', 'prefixItems', 'minItems', 'maxItems',
  'minimum', 'maximum', 'anyOf', 'oneOf', 'properties', 'additionalProperties', 'required', 'propertyOrdering',
]);

/** The first keyword outside Gemini's JSON Schema subset, anywhere in the schema. */
function unsupportedKeyword(schema: unknown): string | undefined {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return undefined;
  for (const [key, value] of Object.entries(schema as Json)) {
    if (!SCHEMA_KEYWORDS.has(key)) return key;
    const subs: unknown[] =
      key === 'properties' || key === '$defs'
        ? Object.values((value ?? {}) as Json)
        : key === 'anyOf' || key === 'oneOf' || key === 'prefixItems'
          ? (Array.isArray(value) ? value : [])
          : key === 'items' || key === 'additionalProperties'
            ? [value]
            : [];
    for (const sub of subs) {
      const bad = unsupportedKeyword(sub);
      if (bad) return bad;
    }
  }
  return undefined;
}

/** Gemini-only script knobs, carried on the reply object. */
export interface GeminiScript {
  /** A finishReason other than the one derived from `stop` (RECITATION, MALFORMED_FUNCTION_CALL, …). */
  geminiFinish?: string;
  /** The prompt is refused: promptFeedback.blockReason and no candidate. */
  geminiPromptBlock?: string;
  /** Leave function calls without ids (Vertex, older Gemini API answers). */
  geminiNoCallIds?: boolean;
}

/** Signatures Google documents for calls Gemini did not make (another model's history). */
const SENTINELS = new Set(['skip_thought_signature_validator', 'context_engineering_is_the_way_to_go']);

const modelOf = (req: ReceivedRequest) => /\/models\/([^/:]+):/.exec(req.path)?.[1] ?? 'gemini-scripted';

export interface GeminiRenderer extends ProtocolRenderer {
  /** The history check Gemini makes (the current-turn rule only for Gemini 3 models, by `model`); a
   * refusal (status 400 body) or undefined when the request is acceptable. */
  verify(body: Json, model: string): { status: number; body: unknown } | undefined;
}

export function createGeminiRenderer(): GeminiRenderer {
  /** Every signature this server issued. */
  const issued = new Set<string>();
  /** A signed call (by id, else name + arguments) → its signature. */
  const signedCalls = new Map<string, string>();
  const callKey = (fc: Json) => (typeof fc.id === 'string' && fc.id ? `id:${fc.id}` : `fn:${fc.name}:${JSON.stringify(fc.args ?? {})}`);

  /** The reply's parts, with signatures placed as Gemini 3 places them. */
  function parts(reply: OkReply, streamed: boolean): Json[][] {
    const script = reply as OkReply & GeminiScript;
    const out: Json[][] = []; // one inner array per frame when streamed (a single one otherwise)
    let pending: string | undefined;
    let signedACall = false;
    const blocks = reply.blocks;
    blocks.forEach((b, i) => {
      if (b.type === 'reasoning') {
        const pieces = streamed ? splitText(b.text) : b.text ? [b.text] : [];
        const signature = b.opaque ?? `sig-${randomBytes(24).toString('base64')}`;
        issued.add(signature);
        const next = blocks[i + 1];
        if (next && next.type !== 'reasoning') {
          for (const piece of pieces) out.push([{ text: piece, thought: true }]);
          pending = signature; // rides on the answer part that follows
        } else {
          // Nothing follows: the (last) thought part itself is signed.
          if (pieces.length === 0) pieces.push('');
          pieces.forEach((piece, k) => out.push([k === pieces.length - 1 ? { text: piece, thought: true, thoughtSignature: signature } : { text: piece, thought: true }]));
        }
      } else if (b.type === 'text') {
        const pieces = streamed ? splitText(b.text) : [b.text];
        pieces.forEach((piece) => {
          const part: Json = { text: piece };
          if (pending !== undefined) part.thoughtSignature = pending;
          pending = undefined;
          out.push([part]);
        });
      } else {
        const args = b.custom ? { input: b.arguments } : JSON.parse(b.arguments || '{}');
        const fc: Json = script.geminiNoCallIds || !b.id ? { name: b.name, args } : { id: b.id, name: b.name, args };
        const part: Json = { functionCall: fc };
        let signature = pending;
        pending = undefined;
        if (signature === undefined && !signedACall) {
          signature = `sig-${randomBytes(24).toString('base64')}`;
          issued.add(signature);
        }
        if (signature !== undefined) {
          part.thoughtSignature = signature;
          if (!signedACall) signedCalls.set(callKey(fc), signature);
          signedACall = true;
        }
        out.push([part]);
      }
    });
    if (pending !== undefined) out.push([{ text: '', thoughtSignature: pending }]);
    return out;
  }

  function finishReason(reply: OkReply): string {
    const script = reply as OkReply & GeminiScript;
    if (script.geminiFinish) return script.geminiFinish;
    switch (reply.stop) {
      case 'max_tokens':
        return 'MAX_TOKENS';
      case 'refusal':
        return 'SAFETY';
      default:
        return 'STOP'; // a stop sequence too: Gemini does not say which
    }
  }

  function usageBody(u: ResolvedUsage): Json {
    const prompt = u.input + u.cacheRead + u.cacheWrite;
    const candidates = Math.max(0, u.output - u.reasoning);
    const usage: Json = { promptTokenCount: prompt, candidatesTokenCount: candidates, totalTokenCount: prompt + u.output, promptTokensDetails: [{ modality: 'TEXT', tokenCount: prompt }] };
    if (u.reasoning > 0) usage.thoughtsTokenCount = u.reasoning;
    if (u.cacheRead > 0) usage.cachedContentTokenCount = u.cacheRead;
    return usage;
  }

  function envelope(req: ReceivedRequest, responseId: string, candidate: Json | undefined, usage: Json | undefined): Json {
    const body: Json = {};
    if (candidate) body.candidates = [candidate];
    if (usage) body.usageMetadata = usage;
    body.modelVersion = modelOf(req);
    body.responseId = responseId;
    return body;
  }

  const responseId = () => randomBytes(15).toString('base64url');
  const safetyRatings = [{ category: 'HARM_CATEGORY_DANGEROUS_CONTENT', probability: 'HIGH', blocked: true }];

  function json(reply: OkReply, req: ReceivedRequest): unknown {
    const script = reply as OkReply & GeminiScript;
    const usage = usageBody(resolveUsage(reply, req));
    if (script.geminiPromptBlock) {
      return { promptFeedback: { blockReason: script.geminiPromptBlock, safetyRatings }, usageMetadata: { promptTokenCount: usage.promptTokenCount, totalTokenCount: usage.promptTokenCount }, modelVersion: modelOf(req), responseId: responseId() };
    }
    const all = parts(reply, false).flat();
    const finish = finishReason(reply);
    const candidate: Json = { content: { role: 'model', parts: all }, finishReason: finish, index: 0 };
    if (finish === 'SAFETY') candidate.safetyRatings = safetyRatings;
    return envelope(req, responseId(), candidate, usage);
  }

  function stream(reply: OkReply, req: ReceivedRequest): StreamScript {
    const script = reply as OkReply & GeminiScript;
    const id = responseId();
    const u = resolveUsage(reply, req);
    const usage = usageBody(u);
    const running = { promptTokenCount: usage.promptTokenCount, totalTokenCount: usage.promptTokenCount };
    const frame = (body: Json) => `data: ${JSON.stringify(body)}\r\n\r\n`;
    if (script.geminiPromptBlock) {
      const blocked = frame({ promptFeedback: { blockReason: script.geminiPromptBlock, safetyRatings }, usageMetadata: running, modelVersion: modelOf(req), responseId: id });
      return { opening: [blocked], finish: () => [], fail: () => [] };
    }
    const opening = parts(reply, true).map((p) => frame(envelope(req, id, { content: { role: 'model', parts: p }, index: 0 }, running)));
    return {
      opening,
      finish() {
        const finish = finishReason(reply);
        const candidate: Json = { content: { role: 'model', parts: [{ text: '' }] }, finishReason: finish, index: 0 };
        if (finish === 'SAFETY') candidate.safetyRatings = safetyRatings;
        return [frame(envelope(req, id, candidate, usage))];
      },
      fail(message) {
        return [frame({ error: { code: 500, message, status: 'INTERNAL' } })];
      },
    };
  }

  function verify(body: Json, model: string): { status: number; body: unknown } | undefined {
    const refuse = (message: string) => ({ status: 400, body: geminiError({ status: 400, message }) });
    // Schemas: only the JSON Schema subset Gemini documents.
    const schemas: [string, unknown][] = [];
    for (const [t, tool] of (Array.isArray(body.tools) ? body.tools : []).entries()) {
      for (const [d, decl] of (tool?.functionDeclarations ?? []).entries()) schemas.push([`tools[${t}].function_declarations[${d}].parameters_json_schema`, decl?.parametersJsonSchema]);
    }
    if (body.generationConfig?.responseJsonSchema !== undefined) schemas.push(['generation_config.response_json_schema', body.generationConfig.responseJsonSchema]);
    for (const [where, schema] of schemas) {
      const bad = unsupportedKeyword(schema);
      if (bad) return refuse(`Invalid JSON payload received. Unknown name "${bad}" at '${where}': Cannot find field.`);
    }
    const contents: Json[] = Array.isArray(body.contents) ? body.contents : [];
    if (contents.length === 0) return refuse('* GenerateContentRequest.contents: contents is not specified');
    let lastCalls = 0;
    for (let i = 0; i < contents.length; i++) {
      const c = contents[i]!;
      if (c.role !== 'user' && c.role !== 'model') return refuse(`Please use a valid role: user, model. (contents[${i}].role: ${String(c.role)})`);
      const ps: Json[] = Array.isArray(c.parts) ? c.parts : [];
      if (ps.length === 0) return refuse(`* GenerateContentRequest.contents[${i}].parts: contents.parts must not be empty.`);
      let calls = 0;
      let responses = 0;
      for (const p of ps) {
        if (typeof p.thoughtSignature === 'string' && !issued.has(p.thoughtSignature) && !SENTINELS.has(p.thoughtSignature)) {
          return refuse('Unable to submit request because Thought signature is not valid.');
        }
        if (p.functionCall) {
          calls++;
          const expected = signedCalls.get(callKey(p.functionCall));
          if (expected !== undefined && p.thoughtSignature !== expected && !SENTINELS.has(p.thoughtSignature)) {
            return refuse(
              p.thoughtSignature === undefined
                ? `Unable to submit request because function call \`${p.functionCall.name}\` in the ${i + 1}. content block is missing a \`thought_signature\`.`
                : 'Unable to submit request because Thought signature is not valid.',
            );
          }
        }
        if (p.functionResponse) {
          responses++;
          if (typeof p.functionResponse.name !== 'string' || !p.functionResponse.name) return refuse(`* GenerateContentRequest.contents[${i}].parts.function_response.name: Name cannot be empty.`);
        }
      }
      if (c.role === 'user' && lastCalls > 0 && responses !== lastCalls) {
        return refuse('Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.');
      }
      lastCalls = c.role === 'model' ? calls : 0;
    }
    // Gemini 3: in the current turn (after the last user content with text), the first call of every
    // step must be signed — by Gemini, or with a documented stand-in.
    if (/gemini-[3-9]/.test(model)) {
      let start = 0;
      contents.forEach((c: Json, i: number) => {
        if (c.role === 'user' && (c.parts ?? []).some((p: Json) => typeof p.text === 'string')) start = i + 1;
      });
      for (let i = start; i < contents.length; i++) {
        const c = contents[i]!;
        if (c.role !== 'model') continue;
        const first = (c.parts ?? []).find((p: Json) => p.functionCall);
        if (first && typeof first.thoughtSignature !== 'string') {
          return refuse(`Unable to submit request because function call \`${first.functionCall.name}\` in the ${i + 1}. content block is missing a \`thought_signature\`.`);
        }
      }
    }
    return undefined;
  }

  return {
    headers: () => ({ 'x-goog-request-id': randomBytes(8).toString('hex'), server: 'scaffolding on HTTPServer2' }),
    json,
    stream,
    error: geminiError,
    verify,
  };
}
