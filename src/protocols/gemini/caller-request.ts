// The body a caller sends the Gemini door: `POST /v1beta/models/{model}:generateContent`,
// `:streamGenerateContent` and `:countTokens` (gemini.md §2–§5, §12, §13). TypeBox, compiled by the
// codec: the shapes of the fields the gateway translates; unknown keys are allowed (and dropped with a
// warning unless the upstream speaks Gemini, where the caller's own body goes up). The model is in
// the path, not here.
import { Type, type Static } from '@sinclair/typebox';

const Blob = Type.Object({ mimeType: Type.String({ minLength: 1 }), data: Type.String() });
const FileData = Type.Object({ mimeType: Type.Optional(Type.String()), fileUri: Type.String({ minLength: 1 }) });
const FunctionCall = Type.Object({
  id: Type.Optional(Type.String()),
  name: Type.String({ minLength: 1 }),
  args: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});
const FunctionResponse = Type.Object({
  id: Type.Optional(Type.String()),
  name: Type.String({ minLength: 1 }),
  response: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});

/** One part: exactly one data field (checked by the decoder, which names the part), plus the thought
 * flags. `executableCode`, `codeExecutionResult` and the like are known names the gateway refuses. */
export const CallerPart = Type.Object({
  text: Type.Optional(Type.String()),
  inlineData: Type.Optional(Blob),
  fileData: Type.Optional(FileData),
  functionCall: Type.Optional(FunctionCall),
  functionResponse: Type.Optional(FunctionResponse),
  thought: Type.Optional(Type.Boolean()),
  thoughtSignature: Type.Optional(Type.String()),
});

export const CallerContent = Type.Object({
  /** Absent means `user` (the REST API's default for a single-turn request). */
  role: Type.Optional(Type.Union([Type.Literal('user'), Type.Literal('model')])),
  parts: Type.Array(CallerPart),
});

const FunctionDeclaration = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 128 }),
  description: Type.Optional(Type.String()),
  /** OpenAPI 3.0 Schema subset (upper-case types). */
  parameters: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  /** JSON Schema. */
  parametersJsonSchema: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});

/** A tool: function declarations, or one of Google's own tools (named, so the decoder can refuse them clearly). */
export const CallerTool = Type.Object({
  functionDeclarations: Type.Optional(Type.Array(FunctionDeclaration)),
  googleSearch: Type.Optional(Type.Unknown()),
  googleSearchRetrieval: Type.Optional(Type.Unknown()),
  codeExecution: Type.Optional(Type.Unknown()),
  urlContext: Type.Optional(Type.Unknown()),
});

const Mode = Type.Union([Type.Literal('AUTO'), Type.Literal('ANY'), Type.Literal('NONE'), Type.Literal('VALIDATED'), Type.Literal('MODE_UNSPECIFIED')]);

export const CallerToolConfig = Type.Object({
  functionCallingConfig: Type.Optional(
    Type.Object({
      mode: Type.Optional(Mode),
      allowedFunctionNames: Type.Optional(Type.Array(Type.String())),
    }),
  ),
});

const ThinkingLevel = Type.Union([Type.Literal('MINIMAL'), Type.Literal('LOW'), Type.Literal('MEDIUM'), Type.Literal('HIGH'), Type.Literal('THINKING_LEVEL_UNSPECIFIED')]);

export const CallerGenerationConfig = Type.Object({
  maxOutputTokens: Type.Optional(Type.Integer({ minimum: 1 })),
  temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 2 })),
  topP: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  topK: Type.Optional(Type.Integer({ minimum: 1 })),
  candidateCount: Type.Optional(Type.Integer({ minimum: 1 })),
  /** Google takes at most five. */
  stopSequences: Type.Optional(Type.Array(Type.String(), { maxItems: 5 })),
  seed: Type.Optional(Type.Integer()),
  presencePenalty: Type.Optional(Type.Number({ minimum: -2, exclusiveMaximum: 2 })),
  frequencyPenalty: Type.Optional(Type.Number({ minimum: -2, exclusiveMaximum: 2 })),
  /** Log-probabilities and non-text output: only Gemini produces them (the decoder refuses them elsewhere). */
  responseLogprobs: Type.Optional(Type.Boolean()),
  logprobs: Type.Optional(Type.Integer({ minimum: 0, maximum: 20 })),
  responseModalities: Type.Optional(Type.Array(Type.String())),
  responseMimeType: Type.Optional(Type.String()),
  /** OpenAPI 3.0 Schema subset. */
  responseSchema: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  /** JSON Schema. */
  responseJsonSchema: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  thinkingConfig: Type.Optional(
    Type.Object({
      includeThoughts: Type.Optional(Type.Boolean()),
      thinkingBudget: Type.Optional(Type.Integer({ minimum: -1 })),
      thinkingLevel: Type.Optional(ThinkingLevel),
    }),
  ),
});

const SystemInstruction = Type.Object({ role: Type.Optional(Type.String()), parts: Type.Array(CallerPart) });

export const GenerateContentRequest = Type.Object({
  contents: Type.Array(CallerContent),
  systemInstruction: Type.Optional(SystemInstruction),
  tools: Type.Optional(Type.Array(CallerTool)),
  toolConfig: Type.Optional(CallerToolConfig),
  generationConfig: Type.Optional(CallerGenerationConfig),
  safetySettings: Type.Optional(Type.Array(Type.Unknown())),
  cachedContent: Type.Optional(Type.String()),
  /** Some clients name the model in the body too (`models/…`); the path's wins. */
  model: Type.Optional(Type.String()),
});

/** `:countTokens`: the generation request inside `generateContentRequest`, or bare `contents`. */
export const CountTokensRequest = Type.Object({
  contents: Type.Optional(Type.Array(CallerContent)),
  generateContentRequest: Type.Optional(GenerateContentRequest),
});

export type CallerPartBody = Static<typeof CallerPart>;
export type CallerContentBody = Static<typeof CallerContent>;
export type CallerToolBody = Static<typeof CallerTool>;
export type CallerToolConfigBody = Static<typeof CallerToolConfig>;
export type CallerGenerationConfigBody = Static<typeof CallerGenerationConfig>;
export type GenerateContentRequestBody = Static<typeof GenerateContentRequest>;
export type CountTokensRequestBody = Static<typeof CountTokensRequest>;
