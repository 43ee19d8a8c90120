// What both vendors' token-counting endpoints share: they take a generation body minus the fields
// that only shape the answer, which they reject.
const ANSWER_ONLY_FIELDS = [
  'stream', 'max_tokens', 'max_output_tokens', 'store', 'include', 'stop_sequences', 'temperature', 'top_p', 'top_k',
  'metadata', 'stream_options', 'service_tier',
];

/** The counting body: `payload` (owned by the caller of this function, modified) without those fields. */
export function countTokensBody(payload: Record<string, unknown>): string {
  for (const k of ANSWER_ONLY_FIELDS) delete payload[k];
  return JSON.stringify(payload);
}
