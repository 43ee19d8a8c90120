// What the gateway sends a Gemini `generateContent` / `streamGenerateContent` / `countTokens` endpoint
// (gemini.md §2–§5). Only the fields the driver writes; field names are the REST API's camelCase. Plain
// types, not TypeBox (as for Chat): Gemini is never a front door, so nothing is validated at run time.

export interface GeminiBlob {
  mimeType: string;
  /** Base64. */
  data: string;
}

export interface GeminiFileData {
  mimeType?: string;
  fileUri: string;
}

export interface GeminiFunctionCall {
  /** Present when the upstream gave the call an id (gemini.md §7). */
  id?: string;
  name: string;
  args: Record<string, unknown>;
}

export interface GeminiFunctionResponse {
  id?: string;
  name: string;
  /** Always an object: `{output}` or `{error}`. */
  response: Record<string, unknown>;
}

/** One part: exactly one data field, plus the thought flags (gemini.md §6). */
export interface GeminiPart {
  text?: string;
  inlineData?: GeminiBlob;
  fileData?: GeminiFileData;
  functionCall?: GeminiFunctionCall;
  functionResponse?: GeminiFunctionResponse;
  thought?: boolean;
  thoughtSignature?: string;
}

export interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}

export interface GeminiFunctionDeclaration {
  name: string;
  description?: string;
  /** JSON Schema in the subset Gemini accepts (gemini.md §4). */
  parametersJsonSchema?: Record<string, unknown>;
}

export interface GeminiTool {
  functionDeclarations: GeminiFunctionDeclaration[];
}

export type GeminiFunctionCallingMode = 'AUTO' | 'ANY' | 'NONE' | 'VALIDATED';

export interface GeminiToolConfig {
  functionCallingConfig: { mode: GeminiFunctionCallingMode; allowedFunctionNames?: string[] };
}

export type GeminiThinkingLevel = 'MINIMAL' | 'LOW' | 'MEDIUM' | 'HIGH';

export interface GeminiThinkingConfig {
  includeThoughts?: boolean;
  /** Gemini 2.5: tokens; 0 = off, -1 = dynamic. */
  thinkingBudget?: number;
  /** Gemini 3. */
  thinkingLevel?: GeminiThinkingLevel;
}

export interface GeminiGenerationConfig {
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  stopSequences?: string[];
  responseMimeType?: string;
  responseJsonSchema?: Record<string, unknown>;
  thinkingConfig?: GeminiThinkingConfig;
}

export interface GeminiRequest {
  contents: GeminiContent[];
  systemInstruction?: { parts: { text: string }[] };
  tools?: GeminiTool[];
  toolConfig?: GeminiToolConfig;
  generationConfig?: GeminiGenerationConfig;
}

/** `:countTokens` takes the generation request inside `generateContentRequest` (model included). */
export interface GeminiCountTokensRequest {
  generateContentRequest: GeminiRequest & { model: string };
}
