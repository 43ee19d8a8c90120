// Content parts of Responses input messages and tool outputs (responses.md §4): input_text,
// input_image, input_file, and the assistant-history output_text / refusal. `input_audio` validates
// and is dropped with a warning; any other part type is refused, as the API refuses it.
import { Type, type Static } from '@sinclair/typebox';
import { Enum, Nullable } from './common.js';

export const InputTextPart = Type.Object({ type: Type.Literal('input_text'), text: Type.String() });

export const OutputTextPart = Type.Object({ type: Type.Literal('output_text'), text: Type.String() });

export const RefusalPart = Type.Object({ type: Type.Literal('refusal'), refusal: Type.String() });

export const InputImagePart = Type.Object({
  type: Type.Literal('input_image'),
  /** An https URL or a `data:<mime>;base64,…` URL. */
  image_url: Type.Optional(Nullable(Type.String())),
  file_id: Type.Optional(Nullable(Type.String())),
  detail: Type.Optional(Nullable(Enum(['low', 'high', 'auto', 'original']))),
});

export const InputFilePart = Type.Object({
  type: Type.Literal('input_file'),
  /** `data:<mime>;base64,…` (a bare base64 payload is tolerated). */
  file_data: Type.Optional(Nullable(Type.String())),
  file_url: Type.Optional(Nullable(Type.String())),
  file_id: Type.Optional(Nullable(Type.String())),
  filename: Type.Optional(Nullable(Type.String())),
});

export const PART_TYPES = ['input_text', 'output_text', 'refusal', 'input_image', 'input_file'] as const;

export const OtherPart = Type.Object({ type: Enum(['input_audio']) });

export const ContentPart = Type.Union([InputTextPart, OutputTextPart, RefusalPart, InputImagePart, InputFilePart, OtherPart]);

export type InputImagePartBody = Static<typeof InputImagePart>;
export type InputFilePartBody = Static<typeof InputFilePart>;
/** The known parts only: the decoder switches on `type` and treats anything else as unknown. */
export type KnownContentPartBody =
  | Static<typeof InputTextPart>
  | Static<typeof OutputTextPart>
  | Static<typeof RefusalPart>
  | InputImagePartBody
  | InputFilePartBody;
export type ContentPartBody = Static<typeof ContentPart>;
