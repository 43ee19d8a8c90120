// What a Gemini endpoint answers (gemini.md §8–§11): a GenerateContentResponse (the whole body, or one
// SSE frame of `streamGenerateContent?alt=sse`), countTokens answers and the error envelope. Every
// field is optional and loosely typed: decoders tolerate missing or re-typed fields (Vertex and the
// Gemini API differ in small ways, and new enum values appear).

export interface GeminiResponsePart {
  text?: unknown;
  thought?: unknown;
  thoughtSignature?: unknown;
  functionCall?: { id?: unknown; name?: unknown; args?: unknown } | null;
  inlineData?: { mimeType?: unknown; data?: unknown } | null;
  executableCode?: unknown;
  codeExecutionResult?: unknown;
}

export interface GeminiCandidate {
  content?: { role?: unknown; parts?: GeminiResponsePart[] | null } | null;
  finishReason?: unknown;
  finishMessage?: unknown;
  index?: unknown;
  safetyRatings?: unknown;
}

export interface GeminiUsageMetadata {
  promptTokenCount?: number | null;
  candidatesTokenCount?: number | null;
  thoughtsTokenCount?: number | null;
  cachedContentTokenCount?: number | null;
  toolUsePromptTokenCount?: number | null;
  totalTokenCount?: number | null;
}

export interface GeminiPromptFeedback {
  blockReason?: unknown;
  blockReasonMessage?: unknown;
}

export interface GeminiResponse {
  candidates?: GeminiCandidate[] | null;
  promptFeedback?: GeminiPromptFeedback | null;
  usageMetadata?: GeminiUsageMetadata | null;
  modelVersion?: unknown;
  responseId?: unknown;
  /** An error object inside a stream frame. */
  error?: GeminiWireError | null;
}

/** `google.rpc.Status` as the REST API renders it. */
export interface GeminiWireError {
  code?: unknown;
  message?: unknown;
  status?: unknown;
  details?: unknown;
}

export interface GeminiErrorBody {
  error?: GeminiWireError | null;
}

export interface GeminiCountTokensResponse {
  totalTokens?: number;
  cachedContentTokenCount?: number;
}
